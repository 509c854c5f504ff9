/**
 * The module boundaries of docs/foundation.md, checked on the source: every table belongs to
 * one module, only that module's files name it in SQL, and a module uses another only through
 * the other's `public.ts` (its explicit, small surface). A file that queries another module's
 * table or imports another module's internals fails here, naming the file and what it did.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const modulesRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src/modules');

/** Which module owns each table (the one module whose files may name it in SQL). */
const tableOwners: Record<string, string> = {
  // The organization and its settings, users, sessions, API keys, projects, branches and tags.
  install: 'console',
  organizations: 'console',
  users: 'console',
  sessions: 'console',
  apiKeys: 'console',
  projects: 'console',
  branches: 'console',
  tags: 'console',
  // Tests, their revisions, tag links, attachments and the project's secrets.
  tests: 'tests',
  testRevisions: 'tests',
  testTags: 'tests',
  attachments: 'tests',
  projectSecrets: 'tests',
  // The step-tree store: canonical steps, shared-group links and the nodes of revision trees.
  steps: 'steps',
  stepChildren: 'steps',
  revisionSteps: 'steps',
  runs: 'runs',
  runTests: 'runs',
  runBatches: 'runs',
  runProcesses: 'runs',
  webhooks: 'webhooks',
  webhookDeliveries: 'webhooks',
  emailInboxes: 'inboxes',
  emailMessages: 'inboxes',
  schedules: 'schedules',
  scheduleFirings: 'schedules',
  presets: 'presets',
  schedulePresets: 'presets',
  auditLog: 'audit',
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

function moduleSources(): SourceFile[] {
  return (fs.readdirSync(modulesRoot, { recursive: true }) as string[])
    .filter((name) => name.endsWith('.ts'))
    .map((name) => ({
      file: name.split(path.sep).join('/'),
      text: withoutComments(fs.readFileSync(path.join(modulesRoot, name), 'utf8')),
    }));
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
      'tests/list.ts: queries tags, a table of the console module',
      'steps/trees.ts: queries testRevisions, a table of the tests module',
      'runs/deps.ts: imports tests/repository.ts; other modules are used through tests/public.ts',
      'runs/later.ts: imports inboxes/run-access.ts; other modules are used through inboxes/public.ts',
      'console/settings.ts: queries the infrastructure table rateLimits',
      'webhooks/new.ts: queries mystery, a table with no owner in test/architecture.test.ts',
    ]);
  });
});
