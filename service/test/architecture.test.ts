/**
 * The module boundaries and layering of docs/foundation.md, checked on the source: every table
 * belongs to one module, only that module's files name it in SQL, and a module uses another only
 * through the other's `public.ts` (its explicit, small surface). Inside a module, SQL is written
 * only in its repositories (routes → service → repository). Plugins (src/plugins) use modules
 * through `public.ts` too and name no module's table. A file that breaks a rule fails here,
 * naming the file and what it did. The service's shared files (src/*.ts, src/runner) follow
 * the plugins' rules.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const srcRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src');
const modulesRoot = path.join(srcRoot, 'modules');
const pluginsRoot = path.join(srcRoot, 'plugins');

/** Which module owns each table (the one module whose files may name it in SQL). */
const tableOwners: Record<string, string> = {
  // The organization and its settings, users, sessions, API keys, projects, branches and tags.
  install: 'accounts',
  organizations: 'accounts',
  users: 'accounts',
  installAdmins: 'accounts',
  sessions: 'accounts',
  apiKeys: 'accounts',
  projects: 'accounts',
  branches: 'accounts',
  tags: 'accounts',
  // Tests, their revisions, tag links, attachments and the project's secrets.
  tests: 'tests',
  testRevisions: 'tests',
  testTags: 'tests',
  attachments: 'tests',
  projectSecrets: 'tests',
  // The step-tree store: canonical steps, shared-group links and the nodes of revision trees.
  steps: 'step-trees',
  stepChildren: 'step-trees',
  revisionSteps: 'step-trees',
  runs: 'runs',
  runTests: 'runs',
  runBatches: 'runs',
  runProcesses: 'runs',
  runArtifacts: 'runs',
  testResults: 'history',
  testQuarantines: 'history',
  testHealth: 'history',
  testQuarantineEvents: 'history',
  installSettings: 'install-settings',
  alertChannels: 'alerts',
  alertStreams: 'alerts',
  alertDeliveries: 'alerts',
  webhooks: 'webhooks',
  webhookDeliveries: 'webhooks',
  emailInboxes: 'inboxes',
  emailMessages: 'inboxes',
  schedules: 'schedules',
  scheduleFirings: 'schedules',
  presets: 'presets',
  environments: 'environments',
  environmentSecrets: 'environments',
  schedulePresets: 'presets',
  auditLog: 'audit',
  visualBaselines: 'visual',
  visualChanges: 'visual',
  visualBaselineHistory: 'visual',
  ssoProviders: 'sso',
  ssoSessions: 'sso',
};
/** Tables of the shared infrastructure (not any module's); no module names them. */
const infrastructureTables = new Set(['settings', 'rateLimits']);

interface SourceFile {
  /** Path relative to src/modules, with `/` separators. */
  file: string;
  text: string;
}

/** Kysely calls that name a table: `.selectFrom('runs')`, `.innerJoin('tags as t', …)`. */
const kyselyTable =
  /\.(?:selectFrom|insertInto|updateTable|deleteFrom|innerJoin|leftJoin|rightJoin|fullJoin|mergeInto|replaceInto)\(\s*'([A-Za-z_]+)(?:\s+as\s+\w+)?'/g;
/** Tables in raw SQL templates: `from "revisionSteps" rs`, `join "tags"`. */
const rawSqlTable = /\b(?:from|join|update|into)\s+"([A-Za-z_]+)"/gi;
/** Static and dynamic imports and re-exports of relative paths. */
const relativeImport = /(?:\bfrom\s+|\bimport\s*\(\s*)'(\.{1,2}\/[^']+)'/g;

function moduleOf(file: string): string | undefined {
  const parts = file.split('/');
  return parts.length > 1 ? parts[0] : undefined;
}

/** Every way a module's file crosses into another module. */
function boundaryViolations(files: SourceFile[]): string[] {
  const found: string[] = [];
  for (const { file, text } of files) {
    const owner = moduleOf(file);
    if (!owner) continue; // src/modules/index.ts: the registry of module plugins.
    for (const pattern of [kyselyTable, rawSqlTable]) {
      for (const match of text.matchAll(pattern)) {
        const table = match[1] as string;
        const tableOwner = tableOwners[table];
        if (tableOwner === undefined) {
          found.push(
            infrastructureTables.has(table)
              ? `${file}: queries the infrastructure table ${table}`
              : `${file}: queries ${table}, a table with no owner in test/architecture.test.ts`,
          );
        } else if (tableOwner !== owner) {
          found.push(`${file}: queries ${table}, a table of the ${tableOwner} module`);
        }
      }
    }
    for (const match of text.matchAll(relativeImport)) {
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), match[1] as string));
      if (target.startsWith('../')) continue; // outside src/modules: adapters, plugins, runner…
      const targetModule = moduleOf(target);
      if (!targetModule || targetModule === owner) continue;
      if (target !== `${targetModule}/public.ts`)
        found.push(`${file}: imports ${target}; other modules are used through ${targetModule}/public.ts`);
    }
  }
  return found;
}

/** Comments name tables in prose ("computed from \"now\""): only code is checked. */
const withoutComments = (text: string) =>
  text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|\s)\/\/.*$/gm, '$1');

function sourcesUnder(root: string): SourceFile[] {
  return (fs.readdirSync(root, { recursive: true }) as string[])
    .filter((name) => name.endsWith('.ts'))
    .map((name) => ({
      file: name.split(path.sep).join('/'),
      text: withoutComments(fs.readFileSync(path.join(root, name), 'utf8')),
    }));
}
const moduleSources = () => sourcesUnder(modulesRoot);

/**
 * Query building: Kysely's statement builders and raw `sql` templates. Within src/modules only a
 * repository writes these: `repository.ts` or `<topic>-repository.ts` (migrations and the db
 * adapter live outside src/modules). `.transaction()` is not query building: a service opens
 * the transaction and passes `trx` to repository functions.
 */
const queryBuilding =
  /\.(?:selectFrom|insertInto|updateTable|deleteFrom|mergeInto|replaceInto)\(|\bsql(?:<[^`;]*?>)?`|\bsql\.(?:raw|ref|lit|id|table|join|val)\(/g;
const isRepository = (file: string) => /(?:^|\/)(?:[\w-]+-)?repository\.ts$/.test(file);

/**
 * Files that build SQL outside a repository, each with its reason: none (SQL lives in repositories).
 * The list only shrinks: a file listed here that no longer builds SQL fails the check too.
 * Service files (`service.ts`) are never listed: their queries are in repositories.
 */
const sqlOutsideRepositories: Record<string, string> = {};

/** Files of src/modules that build SQL outside a repository and are not listed above. */
function sqlPlacementViolations(files: SourceFile[], exceptions: Record<string, string>): string[] {
  const found: string[] = [];
  for (const { file, text } of files) {
    const statements = [...text.matchAll(queryBuilding)].map((match) => match[0].replace(/[`(]$/, ''));
    if (statements.length === 0) {
      if (file in exceptions) found.push(`${file}: builds no SQL any more; take it off the exceptions`);
      continue;
    }
    if (isRepository(file) || file in exceptions) continue;
    found.push(
      `${file}: builds SQL (${[...new Set(statements)].join(', ')}); queries belong in the module's repository`,
    );
  }
  return found;
}

/**
 * What a plugin (src/plugins) may import from src: other plugins, the adapters, a module's
 * `public.ts`, and these shared files. npm packages (fastify, zod, the contract) are not checked.
 */
const pluginSharedImports = new Set([
  'context.ts',
  'errors.ts',
  'clock.ts',
  // The readiness report names the browser the runner would start, and how runs are isolated.
  'runner/browser.ts',
  'runner/isolation.ts',
]);
/**
 * Plugins that still name a module's tables, with the reason: none (the
 * credential lookups are the accounts module's). Plugins may name only the infrastructure
 * tables (`rateLimits`, `settings`). The list only shrinks.
 */
const pluginTableExceptions: Record<string, string> = {};

/**
 * Plugin imports of a module's internals still made, `plugin file → target`, with the reason:
 * none (a module registers its own routes; plugins reach modules only through public.ts).
 */
const pluginImportExceptions: Record<string, string> = {};

/** A file outside src/modules (`where`) that names a module's table instead of using its public.ts. */
function moduleTableViolations(where: string, text: string): string[] {
  const found: string[] = [];
  for (const pattern of [kyselyTable, rawSqlTable])
    for (const match of text.matchAll(pattern)) {
      const table = match[1] as string;
      if (infrastructureTables.has(table)) continue;
      const owner = tableOwners[table];
      found.push(
        owner
          ? `${where}: queries ${table}, a table of the ${owner} module; use ${owner}/public.ts`
          : `${where}: queries ${table}, a table with no owner in test/architecture.test.ts`,
      );
    }
  return found;
}

function pluginViolations(
  files: SourceFile[],
  tableExceptions: Record<string, string>,
  importExceptions: Record<string, string> = {},
): string[] {
  const found: string[] = [];
  for (const { file, text } of files) {
    const where = `plugins/${file}`;
    if (!(file in tableExceptions)) found.push(...moduleTableViolations(where, text));
    for (const match of text.matchAll(relativeImport)) {
      const target = path.posix.normalize(
        path.posix.join('plugins', path.posix.dirname(file), match[1] as string),
      );
      if (target.startsWith('plugins/') || target.startsWith('adapters/') || pluginSharedImports.has(target))
        continue;
      if (/^modules\/[^/]+\/public\.ts$/.test(target) || `${file} → ${target}` in importExceptions) continue;
      found.push(
        target.startsWith('modules/')
          ? `${where}: imports ${target}; plugins use a module through its public.ts`
          : `${where}: imports ${target}, which plugins may not use (see pluginSharedImports)`,
      );
    }
  }
  return found;
}

/**
 * The service's shared files (src/*.ts and src/runner: the app, its start-up and first start,
 * context, config, the runner) are no module's either: like plugins, they name no module's
 * table and use a module only through its `public.ts`, or the registry of module plugins
 * (`modules/index.ts`). Adapters (the database's migrations name every table) are not checked.
 */
function sharedFileViolations(files: SourceFile[]): string[] {
  const found: string[] = [];
  for (const { file, text } of files) {
    found.push(...moduleTableViolations(file, text));
    for (const match of text.matchAll(relativeImport)) {
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), match[1] as string));
      if (!target.startsWith('modules/') || target === 'modules/index.ts') continue;
      if (!/^modules\/[^/]+\/public\.ts$/.test(target))
        found.push(`${file}: imports ${target}; shared files use a module through its public.ts`);
    }
  }
  return found;
}

/** src/*.ts and src/runner/**: paths relative to src. */
function sharedSources(): SourceFile[] {
  const topLevel = fs
    .readdirSync(srcRoot)
    .filter((name) => name.endsWith('.ts'))
    .map((name) => ({
      file: name,
      text: withoutComments(fs.readFileSync(path.join(srcRoot, name), 'utf8')),
    }));
  const runner = sourcesUnder(path.join(srcRoot, 'runner')).map((source) => ({
    ...source,
    file: `runner/${source.file}`,
  }));
  return [...topLevel, ...runner];
}

describe('module boundaries', () => {
  it('no module queries another module’s tables or imports another module’s internals', () => {
    const files = moduleSources();
    expect(files.length).toBeGreaterThan(50);
    expect(boundaryViolations(files)).toEqual([]);
  });

  it('every module that others use declares its surface in public.ts, which only re-exports', () => {
    const files = moduleSources();
    for (const { file, text } of files.filter((source) => source.file.endsWith('/public.ts'))) {
      // A surface, not a place for logic: re-exports only.
      expect(text.replace(/export\s+(type\s+)?\{[^}]*\}\s+from\s+'[^']+';/g, '').trim(), file).toBe('');
    }
  });

  it('each owned table is named in SQL by its owner, so the map stays current', () => {
    const named = new Set<string>();
    for (const { file, text } of moduleSources()) {
      for (const pattern of [kyselyTable, rawSqlTable])
        for (const match of text.matchAll(pattern))
          if (tableOwners[match[1] as string] === moduleOf(file)) named.add(match[1] as string);
    }
    expect(Object.keys(tableOwners).filter((table) => !named.has(table))).toEqual([]);
  });

  it('SQL is built only in repositories (or a listed exception, with its reason)', () => {
    expect(sqlPlacementViolations(moduleSources(), sqlOutsideRepositories)).toEqual([]);
    for (const file of Object.keys(sqlOutsideRepositories)) expect(file).not.toMatch(/(^|\/)service\.ts$/);
  });

  it('reports SQL built outside a repository, each kind (the check can fail)', () => {
    const violations = sqlPlacementViolations(
      [
        { file: 'console/service.ts', text: "await this.db.selectFrom('users').selectAll().execute()" },
        { file: 'runs/service.ts', text: "await ctx.db.updateTable('runs').set({ status }).execute()" },
        { file: 'tests/transfer.ts', text: "await trx.insertInto('tests').values(part).execute()" },
        {
          file: 'webhooks/service.ts',
          text: "await tx.deleteFrom('webhooks').where('id', '=', id).execute()",
        },
        { file: 'console/members.ts', text: 'await sql`select pg_advisory_xact_lock(1)`.execute(trx)' },
        { file: 'runs/stats.ts', text: 'const n = sql<number>`count(*)`;' },
        { file: 'runs/planner.ts', text: 'const recent = 3;' },
        // Allowed: repositories, a transaction opened by a service, listed exceptions.
        { file: 'console/repository.ts', text: "db.selectFrom('users').selectAll()" },
        { file: 'console/accounts-repository.ts', text: "db.deleteFrom('sessions')" },
        { file: 'webhooks/service.ts', text: 'await db.transaction().execute((tx) => remove(tx, id))' },
        { file: 'runs/batches.ts', text: "tx.insertInto('runBatches').values(rows)" },
      ],
      { 'runs/batches.ts': 'a store', 'runs/planner.ts': 'one read' },
    );
    expect(violations).toEqual([
      "console/service.ts: builds SQL (.selectFrom); queries belong in the module's repository",
      "runs/service.ts: builds SQL (.updateTable); queries belong in the module's repository",
      "tests/transfer.ts: builds SQL (.insertInto); queries belong in the module's repository",
      "webhooks/service.ts: builds SQL (.deleteFrom); queries belong in the module's repository",
      "console/members.ts: builds SQL (sql); queries belong in the module's repository",
      "runs/stats.ts: builds SQL (sql<number>); queries belong in the module's repository",
      'runs/planner.ts: builds no SQL any more; take it off the exceptions',
    ]);
  });

  it('plugins use modules only through public.ts and name no module’s table', () => {
    const files = sourcesUnder(pluginsRoot);
    expect(files.length).toBeGreaterThan(5);
    expect(pluginViolations(files, pluginTableExceptions, pluginImportExceptions)).toEqual([]);
  });

  it('reports each kind of plugin crossing (the check can fail)', () => {
    const violations = pluginViolations(
      [
        {
          file: 'console-static.ts',
          text: "import { artifactProxyRoutes } from '../modules/accounts/artifact-proxy.ts';",
        },
        {
          file: 'auth/index.ts',
          text: "import { findProject } from '../../modules/accounts/repository.ts';",
        },
        { file: 'observability.ts', text: "import { executeRun } from '../runner/executor.ts';" },
        { file: 'auth/keys.ts', text: "db.selectFrom('apiKeys').innerJoin('users', 'a', 'b')" },
        { file: 'quota.ts', text: 'sql`select count(*) from "runs"`' },
        { file: 'odd.ts', text: "db.selectFrom('mystery')" },
        // Allowed: infrastructure tables, plugins, adapters, public.ts, shared files, listed files.
        {
          file: 'rate-limit.ts',
          text: "db.selectFrom('rateLimits'); import { x } from '../adapters/db/index.ts';",
        },
        { file: 'auth/index.ts', text: "import { findProject } from '../../modules/accounts/public.ts';" },
        {
          file: 'errors.ts',
          text: "import { AppError } from '../errors.ts'; import { y } from './auth/secrets.ts';",
        },
        { file: 'auth/credentials.ts', text: "db.selectFrom('sessions')" },
        { file: 'listed.ts', text: "import { x } from '../modules/runs/internal.ts';" },
      ],
      { 'auth/credentials.ts': 'listed' },
      { 'listed.ts → modules/runs/internal.ts': 'listed' },
    );
    expect(violations).toEqual([
      'plugins/console-static.ts: imports modules/accounts/artifact-proxy.ts; plugins use a module through its public.ts',
      'plugins/auth/index.ts: imports modules/accounts/repository.ts; plugins use a module through its public.ts',
      'plugins/observability.ts: imports runner/executor.ts, which plugins may not use (see pluginSharedImports)',
      'plugins/auth/keys.ts: queries apiKeys, a table of the accounts module; use accounts/public.ts',
      'plugins/auth/keys.ts: queries users, a table of the accounts module; use accounts/public.ts',
      'plugins/quota.ts: queries runs, a table of the runs module; use runs/public.ts',
      'plugins/odd.ts: queries mystery, a table with no owner in test/architecture.test.ts',
    ]);
  });

  it('the shared files (app, start-up, context, runner) use modules only through public.ts and name no module’s table', () => {
    const files = sharedSources();
    expect(files.map((source) => source.file)).toEqual(expect.arrayContaining(['app.ts', 'bootstrap.ts']));
    expect(sharedFileViolations(files)).toEqual([]);
  });

  it('reports each kind of shared-file crossing (the check can fail)', () => {
    const violations = sharedFileViolations([
      { file: 'bootstrap.ts', text: "await db.selectFrom('install').select('id').executeTakeFirst()" },
      { file: 'app.ts', text: "import { RunsRuntime } from './modules/runs/runtime.ts';" },
      { file: 'runner/compiler/index.ts', text: "import { x } from '../../modules/steps/repository.ts';" },
      { file: 'backup.ts', text: 'sql`select * from "mystery"`' },
      // Allowed: infrastructure tables, public.ts, the registry of module plugins, non-modules.
      { file: 'settings.ts', text: "db.selectFrom('settings')" },
      { file: 'bootstrap.ts', text: "import { insertInstall } from './modules/accounts/public.ts';" },
      {
        file: 'app.ts',
        text: "import { modulePlugins } from './modules/index.ts'; import { a } from './clock.ts';",
      },
    ]);
    expect(violations).toEqual([
      'bootstrap.ts: queries install, a table of the accounts module; use accounts/public.ts',
      'app.ts: imports modules/runs/runtime.ts; shared files use a module through its public.ts',
      'runner/compiler/index.ts: imports modules/steps/repository.ts; shared files use a module through its public.ts',
      'backup.ts: queries mystery, a table with no owner in test/architecture.test.ts',
    ]);
  });

  it('reports each kind of crossing (the check can fail)', () => {
    const violations = boundaryViolations([
      { file: 'schedules/service.ts', text: "await db.selectFrom('runs').select('id')" },
      {
        file: 'tests/list.ts',
        text: "db.selectFrom('testTags').innerJoin('tags as t', 't.id', 'testTags.tagId')",
      },
      { file: 'steps/trees.ts', text: 'sql`exists (select 1 from "testRevisions" r where r.id = rs.id)`' },
      { file: 'runs/deps.ts', text: "import { findWorkingMany } from '../tests/repository.ts';" },
      { file: 'runs/later.ts', text: "const m = await import('../inboxes/run-access.ts');" },
      { file: 'console/settings.ts', text: "db.updateTable('rateLimits')" },
      { file: 'webhooks/new.ts', text: "db.selectFrom('mystery')" },
      // Allowed: own tables, another module's public.ts, shared code outside src/modules.
      { file: 'runs/repository.ts', text: "db.selectFrom('runs as r').innerJoin('runTests', 'a', 'b')" },
      { file: 'runs/prepare.ts', text: "import { issueRunInboxAccess } from '../inboxes/public.ts';" },
      { file: 'runs/trigger.ts', text: "import { toJson } from '../../adapters/db/index.ts';" },
      { file: 'index.ts', text: "import { runsPlugin } from './runs/index.ts';" },
    ]);
    expect(violations).toEqual([
      'schedules/service.ts: queries runs, a table of the runs module',
      'tests/list.ts: queries tags, a table of the accounts module',
      'steps/trees.ts: queries testRevisions, a table of the tests module',
      'runs/deps.ts: imports tests/repository.ts; other modules are used through tests/public.ts',
      'runs/later.ts: imports inboxes/run-access.ts; other modules are used through inboxes/public.ts',
      'console/settings.ts: queries the infrastructure table rateLimits',
      'webhooks/new.ts: queries mystery, a table with no owner in test/architecture.test.ts',
    ]);
  });
});
