import {
  healMode,
  type ResolvedRunConfig,
  type RunConfig,
  resolveRunConfig,
  type StepNode,
} from '@stepdeck/contract';
import { actionCode } from './actions/index.ts';
import { lit, slug, type TestContext } from './code.ts';
import {
  EMAIL_RUNTIME_FILE,
  HEAL_RUNTIME_FILE,
  PAGE_RUNTIME_FILE,
  RUNTIME_FILE,
  SUGGEST_RUNTIME_FILE,
  TEST_ID_ANNOTATION,
  VISUAL_RUNTIME_FILE,
} from './constants.ts';
import { outlineSteps, stepTitle } from './outline.ts';
import {
  configSource,
  emailRuntime,
  healRuntime,
  pageRuntime,
  playwrightVersion,
  readme,
  runtime,
  suggestRuntime,
  visualDependencies,
  visualRuntime,
} from './project-files.ts';
import type { CompilableTest, CompiledProject, CompileInput } from './types.ts';

export { slug } from './code.ts';
export type { StepOutline } from './outline.ts';
export type { CompilableTest, CompiledProject, CompileInput } from './types.ts';

/**
 * The single place where steps become code: turns tests into a Playwright Test project
 * (`package.json`, `playwright.config.ts`, `stepdeck-runtime.ts` with `stepdeck-email.ts` and
 * `stepdeck-page.ts`, one `tests/*.spec.ts` per test, `files/...` for uploads). The output runs
 * unmodified with `npx playwright test`.
 * Every user string enters the code through `JSON.stringify`; secrets are never written.
 */

export {
  CHROMIUM_ARGS,
  DEFAULT_ACTION_TIMEOUT_MS,
  EXPECTATION_ANNOTATION,
  environmentEnvVar,
  HEAL_ANNOTATION,
  RUNTIME_FILE,
  secretEnvVar,
  TEST_ID_ANNOTATION,
  VISUAL_ANNOTATION,
  visualBaselineFile,
} from './constants.ts';

// Actions that need the browser page.
const PAGE_ACTIONS = new Set([
  'goto',
  'assertScreenshot',
  'reload',
  'goBack',
  'goForward',
  'click',
  'dblclick',
  'hover',
  'fill',
  'press',
  'check',
  'uncheck',
  'selectOption',
  'setInputFiles',
  'type',
  'focus',
  'blur',
  'scrollIntoView',
  'dragTo',
  'dispatchEvent',
  'waitFor',
  'assertVisible',
  'assertHidden',
  'assertText',
  'assertTexts',
  'assertValue',
  'assertChecked',
  'assertEnabled',
  'assertDisabled',
  'assertClass',
  'assertAttribute',
  'assertCss',
  'assertUrl',
  'assertTitle',
  'assertCount',
  'extract',
  'evaluate',
  'assertScript',
  'screenshot',
  'gotoEmailLink',
]);

function walk(steps: StepNode[], visit: (step: StepNode) => void): void {
  for (const step of steps) {
    visit(step);
    if (step.children) walk(step.children, visit);
  }
}

function usesAction(test: CompilableTest, names: Set<string>): boolean {
  let found = false;
  walk(test.steps, (step) => {
    if (names.has(step.action.name)) found = true;
  });
  return found;
}

/** The `assertScreenshot` steps of a test, shared steps and groups included. */
export function screenshotSteps(test: Pick<CompilableTest, 'steps'>): StepNode[] {
  const found: StepNode[] = [];
  walk(test.steps, (step) => {
    if (step.action.name === 'assertScreenshot') found.push(step);
  });
  return found;
}

export function testNeedsPage(test: CompilableTest): boolean {
  return test.type !== 'api' || usesAction(test, PAGE_ACTIONS);
}

function stepCode(ctx: TestContext, step: StepNode, indent: string, depth: number): string[] {
  const scope = `s${depth}`;
  const inner = `s${depth + 1}`;
  const condition = step.condition ?? null;
  const body = actionCode(ctx, step, (child) => stepCode(ctx, child, `${indent}  `, depth + 1));
  return [
    `${indent}await sd.step(${scope}, ${lit(stepTitle(step))}, ${lit(condition)}, async (${inner}) => {`,
    ...body.map((line) => (line.startsWith(indent) ? line : `${indent}  ${line}`)),
    // The node id: a failing locator's suggestions and a healed step are reported under it.
    `${indent}}, ${lit(step.id)});`,
  ];
}

/**
 * The deepest step tree compiled as written. Saving caps a tree at 50 levels (maxStepDepth),
 * but shared steps inside groups and children added one by one can go further; Playwright
 * cannot load a spec nested some hundreds of levels deep (its transform runs out of stack),
 * which would fail the whole run with "No tests found". Such a test fails alone, saying why.
 */
export const maxCompiledStepDepth = 100;

function stepDepth(steps: StepNode[]): number {
  let deepest = 0;
  for (const step of steps) deepest = Math.max(deepest, 1 + stepDepth(step.children ?? []));
  return deepest;
}

function specSource(ctx: TestContext, input: CompileInput): string {
  const { test } = ctx;
  const depth = stepDepth(test.steps);
  if (depth > maxCompiledStepDepth) return tooDeepSpec(test, depth);
  const needsPage = testNeedsPage(test);
  const needsRequest = usesAction(test, new Set(['request']));
  const fixtures = [needsPage && 'page', needsRequest && 'request'].filter(Boolean).join(', ');
  const body = test.steps.flatMap((step) => stepCode(ctx, step, '  ', 0));
  const runtimeImports = ['Stepdeck', usesAction(test, new Set(['assertJson'])) && 'readJsonPath']
    .filter(Boolean)
    .join(', ');
  const init = [`vars: ${lit(test.vars ?? {})}`, `parameters: ${lit(test.parameters ?? {})}`];
  if (input.inboxApi?.baseUrl) init.push(`inboxApiUrl: ${lit(input.inboxApi.baseUrl)}`);
  const heal = healMode(test.config as RunConfig);
  if (heal !== 'suggest') init.push(`heal: ${lit(heal)}`);
  return [
    generatedFrom(test),
    `import { expect, test } from '@playwright/test';`,
    `import { ${runtimeImports} } from '../${RUNTIME_FILE}';`,
    '',
    `${testCall(test)}async ({ ${fixtures} }, testInfo) => {`,
    `  const sd = new Stepdeck(testInfo, { ${init.join(', ')} });`,
    ...(needsPage ? [`  await sd.guard(page);`] : []),
    `  const s0 = sd.root;`,
    ...body,
    `  sd.finish();`,
    `});`,
    '',
  ].join('\n');
}

const generatedFrom = (test: CompilableTest) =>
  `// Generated by Stepdeck from test ${lit(test.name)} (${lit(test.id)}).`;

/** `test(name, { annotation: test id }, ` — the body follows: the report maps results by that id. */
const testCall = (test: CompilableTest) =>
  `test(${lit(test.name)}, { annotation: [{ type: ${lit(TEST_ID_ANNOTATION)}, description: ${lit(test.id)} }] }, `;

function tooDeepSpec(test: CompilableTest, depth: number): string {
  const message = `steps nest ${depth} levels deep (shared steps included); at most ${maxCompiledStepDepth} can run: flatten some groups`;
  return [
    generatedFrom(test),
    `import { test } from '@playwright/test';`,
    '',
    `${testCall(test)}() => {`,
    `  throw new Error(${lit(message)});`,
    `});`,
    '',
  ].join('\n');
}

/** Compiles tests into a Playwright Test project (see the module comment). */
export function compileProject(input: CompileInput): CompiledProject {
  const files = new Map<string, Buffer | string>();
  const specFiles = new Map<string, string>();
  const outlines = new Map<string, ReturnType<typeof outlineSteps>>();
  const usedNames = new Set<string>();
  const groups = new Map<string, { config: ResolvedRunConfig; specs: string[] }>();
  let browser = false;

  for (const test of input.tests) {
    let base = `${slug(test.name)}-${slug(test.id, 8)}`;
    for (let n = 2; usedNames.has(base); n++) base = `${slug(test.name)}-${slug(test.id, 8)}-${n}`;
    usedNames.add(base);
    const spec = `tests/${base}.spec.ts`;
    const ctx: TestContext = { test, fileDir: `files/${base}`, files: new Map(), out: new Map() };
    files.set(spec, specSource(ctx, input));
    for (const [relative, content] of ctx.out) files.set(relative, content);
    specFiles.set(test.id, spec);
    outlines.set(test.id, outlineSteps(test.steps));
    if (testNeedsPage(test)) browser = true;

    const config = input.config ?? resolveRunConfig(test.config as RunConfig);
    const key = JSON.stringify(config);
    const group = groups.get(key) ?? { config, specs: [] };
    group.specs.push(spec);
    groups.set(key, group);
  }
  if (groups.size === 0) {
    const config = input.config ?? resolveRunConfig();
    groups.set('default', { config, specs: [] });
  }
  const groupList = [...groups.values()];
  const visual = input.tests.some((test) => usesAction(test, new Set(['assertScreenshot'])));

  files.set(
    'package.json',
    `${JSON.stringify(
      {
        name: 'stepdeck-tests',
        private: true,
        type: 'module',
        scripts: { test: 'playwright test' },
        devDependencies: {
          '@playwright/test': playwrightVersion(),
          ...(visual ? visualDependencies() : {}),
        },
      },
      null,
      2,
    )}\n`,
  );
  files.set('playwright.config.ts', configSource(groupList, groupList.length === 1));
  files.set(RUNTIME_FILE, runtime());
  files.set(EMAIL_RUNTIME_FILE, emailRuntime());
  files.set(PAGE_RUNTIME_FILE, pageRuntime());
  files.set(HEAL_RUNTIME_FILE, healRuntime());
  files.set(SUGGEST_RUNTIME_FILE, suggestRuntime());
  if (visual) files.set(VISUAL_RUNTIME_FILE, visualRuntime());
  files.set('README.md', readme(input));
  files.set('.gitignore', 'node_modules/\ntest-results/\nplaywright-report/\n');

  return {
    files,
    specFiles,
    outlines,
    requirements: { browser, video: groupList.some((group) => group.config.use.video !== 'off') },
  };
}
