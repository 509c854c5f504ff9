/**
 * Declared, acyclic modules: no file of the service, the action or the console loads itself
 * through others, no module (a folder: a service module, the plugins, the runner, the
 * adapters; a console folder) does either, and each service module's plugin declares, in its
 * fastify-plugin `dependencies`, exactly the modules it imports. A cycle makes load order
 * matter (a value read before its file ran is `undefined`) and makes two modules one; the way
 * out is to move what both use to the module that owns it. The sibling of architecture.test.ts,
 * which checks what a module may import; this checks which way the imports point.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  cycles,
  type ImportGraph,
  importGraph,
  type Source,
  sourceTree,
  unitGraph,
  withoutEdges,
} from './import-graph.ts';

const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const trees = {
  service: path.join(repositoryRoot, 'service/src'),
  action: path.join(repositoryRoot, 'src'),
  console: path.join(repositoryRoot, 'console/src'),
};

/** A service module (`modules/runs`), the plugins, the runner, the adapters, or a shared file alone. */
function serviceUnit(file: string): string {
  const parts = file.split('/');
  if (parts[0] === 'modules' && parts.length > 2) return `modules/${parts[1]}`;
  return parts.length > 1 ? (parts[0] as string) : file;
}
/** A folder (`pages/editor`, `report`), or a top-level file alone. */
const folderUnit = (file: string) => (file.includes('/') ? path.posix.dirname(file) : file);

/**
 * Module edges allowed to close a cycle, `from → to`, each with its reason: none, so the checks
 * below prove the service acyclic by module and by file. Should one ever be listed, an edge
 * that is gone, or no longer on a cycle, fails the check until taken off.
 */
const moduleCycleExceptions: Record<string, string> = {};
/** File edges allowed to close a cycle, as above: none. */
const fileCycleExceptions: Record<string, string> = {};
/**
 * Module plugins declared for the order of start and stop alone, with nothing imported:
 * `module → plugin name`, with the reason.
 */
const orderOnlyDependencies: Record<string, string> = {
  'webhooks → runs':
    'hears run.finished from the runs module, including runs recovered when the runs module starts',
};

const reaches = (graph: ImportGraph, from: string, to: string): boolean => {
  const seen = new Set([from]);
  const queue = [from];
  while (queue.length > 0)
    for (const next of graph.get(queue.shift() as string) ?? []) {
      if (next === to) return true;
      if (seen.has(next)) continue;
      seen.add(next);
      queue.push(next);
    }
  return false;
};

/** The cycles left once the listed edges are set aside, and each listed edge that is stale. */
function cycleViolations(graph: ImportGraph, exceptions: Record<string, string>): string[] {
  const stale = Object.keys(exceptions).flatMap((edge) => {
    const [from, to] = edge.split(' → ') as [string, string];
    if (!graph.get(from)?.has(to)) return [`${edge}: no longer imported; take it off the exceptions`];
    return reaches(graph, to, from) ? [] : [`${edge}: on no cycle any more; take it off the exceptions`];
  });
  return [...cycles(withoutEdges(graph, Object.keys(exceptions))), ...stale];
}

/** A module plugin's `name` and `dependencies`, read from its fastify-plugin options. */
function pluginOptions(text: string): { name: string; dependencies: string[] } | undefined {
  const found = /\{\s*name:\s*'([^']+)'(?:,\s*dependencies:\s*\[([^\]]*)\])?/.exec(text);
  if (!found) return undefined;
  const dependencies = [...(found[2] ?? '').matchAll(/'([^']+)'/g)].map((match) => match[1] as string);
  return { name: found[1] as string, dependencies };
}

/**
 * Where a module's plugin (`modules/<name>/index.ts`) and its imports disagree: a module it
 * imports whose plugin it does not declare (fastify would not make sure it is registered first),
 * or a module plugin it declares without importing anything of it. Plugins that are no module
 * (`queue`) may be declared freely; a module edge listed as closing a cycle cannot be declared
 * (fastify registers a dependency first) and is neither asked for nor refused.
 */
function dependencyViolations(
  sources: Source[],
  cycleExceptions: Record<string, string> = {},
  orderOnly: Record<string, string> = {},
): string[] {
  const graph = importGraph(sources);
  const plugins = new Map<string, { name: string; dependencies: string[] }>();
  for (const { file, text } of sources) {
    const module = /^modules\/([^/]+)\/index\.ts$/.exec(file)?.[1];
    const options = module && pluginOptions(text);
    if (module && options) plugins.set(module, options);
  }
  const moduleOfPlugin = new Map([...plugins].map(([module, options]) => [options.name, module]));
  const found: string[] = [];
  for (const [module, { dependencies }] of [...plugins].sort()) {
    const used = new Set<string>();
    for (const [file, targets] of graph)
      if (serviceUnit(file) === `modules/${module}`)
        for (const target of targets) {
          const other = /^modules\/([^/]+)\//.exec(target)?.[1];
          if (other && other !== module && plugins.has(other)) used.add(other);
        }
    const excepted = (other: string) => `modules/${module} → modules/${other}` in cycleExceptions;
    for (const other of [...used].sort()) {
      const name = (plugins.get(other) as { name: string }).name;
      if (!dependencies.includes(name) && !excepted(other))
        found.push(
          `modules/${module}/index.ts: imports the ${other} module but does not declare '${name}' in dependencies`,
        );
    }
    for (const name of dependencies) {
      const other = moduleOfPlugin.get(name);
      if (other && !used.has(other) && !excepted(other) && !(`${module} → ${name}` in orderOnly))
        found.push(
          `modules/${module}/index.ts: declares '${name}' in dependencies but imports nothing of it`,
        );
    }
  }
  return found;
}

describe('module graph', () => {
  const service = sourceTree(trees.service);
  const serviceFiles = importGraph(service);

  it('no file of the service loads itself through others (dynamic imports included)', () => {
    expect(serviceFiles.size).toBeGreaterThan(150);
    expect(cycleViolations(serviceFiles, fileCycleExceptions)).toEqual([]);
  });

  it('no service module (modules/*, plugins, runner, adapters) loads itself through others', () => {
    expect(cycleViolations(unitGraph(serviceFiles, serviceUnit), moduleCycleExceptions)).toEqual([]);
  });

  it('the action and the CLI (src/) have no cycle, by file or by folder', () => {
    const files = importGraph(sourceTree(trees.action));
    expect(files.size).toBeGreaterThan(20);
    expect(cycles(files)).toEqual([]);
    expect(cycles(unitGraph(files, folderUnit))).toEqual([]);
  });

  it('the console (console/src) has no cycle, by file or by folder', () => {
    const files = importGraph(sourceTree(trees.console));
    expect(files.size).toBeGreaterThan(50);
    expect(cycles(files)).toEqual([]);
    expect(cycles(unitGraph(files, folderUnit))).toEqual([]);
  });

  it('each module plugin declares the modules it imports, and only those', () => {
    expect(
      service.filter((source) => /^modules\/[^/]+\/index\.ts$/.test(source.file)).length,
    ).toBeGreaterThan(5);
    expect(dependencyViolations(service, moduleCycleExceptions, orderOnlyDependencies)).toEqual([]);
  });

  it('reports a file cycle, static, re-exported or dynamic, naming the files (the check can fail)', () => {
    const graph = importGraph([
      { file: 'steps/public.ts', text: "export { deleteTree } from './nodes-repository.ts';" },
      { file: 'steps/nodes-repository.ts', text: "import { isWorking } from '../tests/public.ts';" },
      { file: 'tests/public.ts', text: "export * from './executable.ts';" },
      { file: 'tests/executable.ts', text: "const { load } = await import('../steps/public.ts');" },
      { file: 'main.ts', text: "export const state = 1; const m = await import('./action.ts');" },
      { file: 'action.ts', text: "import { type Inputs, state } from './main.ts';" },
      {
        file: 'Palette.tsx',
        text: "import { Dialog } from './Dialog.tsx';\nexport const Palette = () => <Dialog />;",
      },
      { file: 'Dialog.tsx', text: "import { Palette } from './Palette.tsx';" },
      // Not cycles: a type-only import is erased; a comment or a string is no import.
      {
        file: 'context.ts',
        text: "import type { Runs } from './runs.ts';\nexport type { Ctx } from './runs.ts';",
      },
      {
        file: 'runs.ts',
        text: "import { ctx } from './context.ts';\n// import './runs.ts'\nconst s = 'import(\"./runs.ts\")';",
      },
    ]);
    expect(cycles(graph)).toEqual([
      'cycle: Dialog.tsx → Palette.tsx → Dialog.tsx',
      'cycle: action.ts → main.ts → action.ts',
      'cycle: steps/nodes-repository.ts → tests/public.ts → tests/executable.ts → steps/public.ts → steps/nodes-repository.ts',
    ]);
  });

  it('reports a module cycle, and exceptions that are stale (the check can fail)', () => {
    const files = importGraph([
      { file: 'modules/tests/writes.ts', text: "import { active } from '../schedules/public.ts';" },
      { file: 'modules/schedules/public.ts', text: "export { active } from './references.ts';" },
      { file: 'modules/schedules/references.ts', text: "import { tagIds } from '../tests/public.ts';" },
      { file: 'modules/tests/public.ts', text: "export { tagIds } from './repository.ts';" },
      { file: 'modules/tests/repository.ts', text: "import { findTag } from '../console/public.ts';" },
      {
        file: 'modules/accounts/public.ts',
        text: "import { requireUser } from '../../plugins/auth/index.ts';",
      },
      { file: 'plugins/auth/index.ts', text: "import { lookup } from '../../modules/accounts/lookups.ts';" },
      { file: 'modules/accounts/lookups.ts', text: 'export const lookup = 1;' },
    ]);
    const modules = unitGraph(files, serviceUnit);
    expect(cycleViolations(files, {})).toEqual([]);
    expect(cycleViolations(modules, {})).toEqual([
      'cycle: modules/accounts → plugins → modules/accounts',
      'cycle: modules/schedules → modules/tests → modules/schedules',
    ]);
    expect(
      cycleViolations(modules, {
        'modules/tests → modules/schedules': 'listed',
        'modules/tests → modules/runs': 'gone',
        'modules/accounts → modules/tests': 'never there',
      }),
    ).toEqual([
      'cycle: modules/accounts → plugins → modules/accounts',
      'modules/tests → modules/runs: no longer imported; take it off the exceptions',
      'modules/accounts → modules/tests: no longer imported; take it off the exceptions',
    ]);
    const acyclic = withoutEdges(modules, ['plugins → modules/accounts']);
    expect(cycleViolations(acyclic, { 'modules/accounts → plugins': 'listed' })).toEqual([
      'cycle: modules/schedules → modules/tests → modules/schedules',
      'modules/accounts → plugins: on no cycle any more; take it off the exceptions',
    ]);
  });

  it('reports a module plugin whose dependencies and imports disagree (the check can fail)', () => {
    const plugin = (name: string, dependencies: string[]) =>
      `export const p = fp(async () => {}, { name: '${name}', dependencies: [${dependencies.map((d) => `'${d}'`).join(', ')}] });`;
    const violations = dependencyViolations(
      [
        { file: 'modules/accounts/index.ts', text: plugin('accounts', []) },
        { file: 'modules/accounts/public.ts', text: '' },
        {
          file: 'modules/tests/index.ts',
          text: "import { r } from './routes.ts';\nfp(r, { name: 'tests' });",
        },
        { file: 'modules/tests/routes.ts', text: "import { findTag } from '../accounts/public.ts';" },
        { file: 'modules/tests/public.ts', text: '' },
        { file: 'modules/runs/index.ts', text: plugin('runs', ['queue', 'tests', 'accounts']) },
        { file: 'modules/runs/deps.ts', text: "import type { T } from '../tests/public.ts';" },
        { file: 'modules/steps/index.ts', text: plugin('steps', ['tests']) },
        { file: 'modules/steps/service.ts', text: "import { markEdited } from '../tests/public.ts';" },
        // Allowed: an edge listed as closing a cycle, a dependency listed for order alone.
        { file: 'modules/schedules/index.ts', text: plugin('schedules', []) },
        { file: 'modules/schedules/service.ts', text: "import { ids } from '../tests/public.ts';" },
        { file: 'modules/webhooks/index.ts', text: plugin('webhooks', ['runs', 'queue']) },
      ],
      { 'modules/schedules → modules/tests': 'listed' },
      { 'webhooks → runs': 'listed' },
    );
    expect(violations).toEqual([
      "modules/runs/index.ts: declares 'tests' in dependencies but imports nothing of it",
      "modules/runs/index.ts: declares 'accounts' in dependencies but imports nothing of it",
      "modules/tests/index.ts: imports the accounts module but does not declare 'accounts' in dependencies",
    ]);
  });
});
