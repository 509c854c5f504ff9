import {
  dataRows,
  healMode,
  type ResolvedRunConfig,
  type RunConfig,
  resolveRunConfig,
  type StepNode,
} from '@stepdeck/contract';
import { deviceProblem } from '../devices.ts';
import { actionCode } from './actions/index.ts';
import { NETWORK_PAGE_ACTIONS, networkSpecImports, networkSpecSetup } from './actions/network.ts';
import { lit, slug, type TestContext } from './code.ts';
import {
  DATA_ROW_ANNOTATION,
  EMAIL_RUNTIME_FILE,
  HEAL_RUNTIME_FILE,
  PAGE_RUNTIME_FILE,
  RUNTIME_FILE,
  SUGGEST_RUNTIME_FILE,
  TABS_RUNTIME_FILE,
  TEST_ID_ANNOTATION,
  VISUAL_RUNTIME_FILE,
  VITALS_RUNTIME_FILE,
} from './constants.ts';
import {
  type ContextEntry,
  contextEntries,
  type ProjectGroup,
  projectKey,
  specUseLines,
  splitContexts,
  usesDevice,
} from './context-options.ts';
import { networkProjectFiles } from './network-project.ts';
import { outlineSteps, stepTitle } from './outline.ts';
import {
  configSource,
  emailRuntime,
  healRuntime,
  pageRuntime,
  playwrightVersion,
  readme,
  runtime,
  runtimeParts,
  suggestRuntime,
  tabsRuntime,
  visualDependencies,
  visualRuntime,
  vitalsRuntime,
} from './project-files.ts';
import type { CompilableTest, CompiledProject, CompileInput } from './types.ts';

export { slug } from './code.ts';
export type { StepOutline } from './outline.ts';
export type { CompilableTest, CompiledProject, CompileInput } from './types.ts';

/**
 * The single place where steps become code: turns tests into a Playwright Test project
 * (`package.json`, `playwright.config.ts`, `stepdeck-runtime.ts` with its parts and siblings
 * (`stepdeck-*.ts`), one `tests/*.spec.ts` per test, `files/...` for uploads). The output runs
 * unmodified with `npx playwright test`.
 * Every user string enters the code through `JSON.stringify`; secrets are never written.
 */

export {
  CHROMIUM_ARGS,
  DATA_ROW_ANNOTATION,
  DEFAULT_ACTION_TIMEOUT_MS,
  EXPECTATION_ANNOTATION,
  environmentEnvVar,
  HEAL_ANNOTATION,
  RUNTIME_FILE,
  secretEnvVar,
  TEST_ID_ANNOTATION,
  VISUAL_ANNOTATION,
  VITALS_ANNOTATION,
  visualBaselineFile,
} from './constants.ts';

// Actions that change which page later steps act on (the spec's `let page`).
const TAB_ACTIONS = new Set(['waitForPopup', 'switchTab', 'closeTab']);

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
  ...NETWORK_PAGE_ACTIONS,
  'measureVitals',
  'assertVitals',
  ...TAB_ACTIONS,
]);

const VITALS_ACTIONS = new Set(['measureVitals', 'assertVitals']);

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

function specSource(ctx: TestContext, input: CompileInput, ownContext: ContextEntry[]): string {
  const { test } = ctx;
  const depth = stepDepth(test.steps);
  if (depth > maxCompiledStepDepth) return tooDeepSpec(test, depth);
  const device = (test.config as RunConfig | null)?.device;
  const deviceRefused = device === undefined ? null : deviceProblem(device);
  if (deviceRefused) return refusedSpec(test, deviceRefused);
  const needsPage = testNeedsPage(test);
  const needsRequest = usesAction(test, new Set(['request']));
  // A test that changes tabs keeps its current page in a variable the steps read.
  const changesTabs = usesAction(test, TAB_ACTIONS);
  const fixtures = [needsPage && (changesTabs ? 'page: firstPage' : 'page'), needsRequest && 'request']
    .filter(Boolean)
    .join(', ');
  const body = test.steps.flatMap((step) => stepCode(ctx, step, '  ', 0));
  const runtimeImports = ['Stepdeck', usesAction(test, new Set(['assertJson'])) && 'readJsonPath']
    .filter(Boolean)
    .join(', ');
  const init = [`vars: ${lit(test.vars ?? {})}`, `parameters: ${lit(test.parameters ?? {})}`];
  if (input.inboxApi?.baseUrl) init.push(`inboxApiUrl: ${lit(input.inboxApi.baseUrl)}`);
  if (test.dataSet) init.push('data: row.data');
  // Vitals observers go on the context before the first page loads, so LCP and CLS are buffered.
  const vitals = usesAction(test, VITALS_ACTIONS);
  const heal = healMode(test.config as RunConfig);
  if (heal !== 'suggest') init.push(`heal: ${lit(heal)}`);
  if (ownContext.length > 0) init.push('context');
  return [
    generatedFrom(test),
    `import { ${usesDevice(ownContext) ? 'devices, ' : ''}expect, test } from '@playwright/test';`,
    `import { ${runtimeImports} } from '../${RUNTIME_FILE}';`,
    ...networkSpecImports((names) => usesAction(test, names)),
    ...(vitals
      ? [`import { assertVitals, installVitals, measureVitals } from '../${VITALS_RUNTIME_FILE}';`]
      : []),
    '',
    ...(ownContext.length > 0 ? [...specUseLines(ownContext), ''] : []),
    `${testCall(test)}async ({ ${fixtures} }, testInfo) => {`,
    `  const sd = new Stepdeck(testInfo, { ${init.join(', ')} });`,
    ...(changesTabs ? ['  let page = firstPage;'] : []),
    ...(needsPage ? [`  sd.attach(page);`] : []),
    ...(vitals ? [`  await installVitals(page);`] : []),
    ...networkSpecSetup((names) => usesAction(test, names)),
    `  const s0 = sd.root;`,
    ...body,
    `  sd.finish();`,
    `});`,
    '',
  ].join('\n');
}

const generatedFrom = (test: CompilableTest) =>
  `// Generated by Stepdeck from test ${lit(test.name)} (${lit(test.id)}).`;

/**
 * `test(name, { annotation: test id }, ` — the body follows: the report maps results by that id.
 * A test with a data set is one Playwright test per row, titled `<test name> [<row name>]`: the
 * rows are a const array in the spec (an exported project runs them as they are) and each test
 * carries its row (DATA_ROW_ANNOTATION), so its result is the test's and named by the row.
 */
function testCall(test: CompilableTest): string {
  const idAnnotation = `{ type: ${lit(TEST_ID_ANNOTATION)}, description: ${lit(test.id)} }`;
  if (!test.dataSet) return `test(${lit(test.name)}, { annotation: [${idAnnotation}] }, `;
  const rows = dataRows(test.dataSet).map((row) => ({
    title: `${test.name} [${row.name}]`,
    dataRow: { index: row.index, name: row.name },
    data: row.values,
  }));
  return [
    `const rows = ${JSON.stringify(rows, null, 2)};`,
    '',
    `for (const row of rows) test(row.title, { annotation: [${idAnnotation}, { type: ${lit(DATA_ROW_ANNOTATION)}, description: JSON.stringify(row.dataRow) }] }, `,
  ].join('\n');
}

/** A test that cannot run as configured fails alone, saying why (a config saved before a check). */
function refusedSpec(test: CompilableTest, message: string): string {
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
  // Tests are named and grouped into projects first: a spec carries its own context when the
  // other tests of its project differ (context-options.ts).
  const named = new Map<string, { test: CompilableTest; base: string; entries: ContextEntry[] }>();
  const members = new Map<
    string,
    { config: ResolvedRunConfig; specs: string[]; entries: ContextEntry[][] }
  >();
  let browser = false;

  for (const test of input.tests) {
    let base = `${slug(test.name)}-${slug(test.id, 8)}`;
    for (let n = 2; usedNames.has(base); n++) base = `${slug(test.name)}-${slug(test.id, 8)}-${n}`;
    usedNames.add(base);
    const spec = `tests/${base}.spec.ts`;
    const config = input.config ?? resolveRunConfig(test.config as RunConfig);
    const entries = contextEntries(config);
    named.set(spec, { test, base, entries });
    const key = projectKey(config);
    const group = members.get(key) ?? { config, specs: [], entries: [] };
    group.specs.push(spec);
    group.entries.push(entries);
    members.set(key, group);
  }
  const groups: ProjectGroup[] = [];
  const ownContext = new Map<string, ContextEntry[]>();
  for (const { config, specs, entries } of members.values()) {
    const split = splitContexts(specs.map((spec, i) => ({ spec, entries: entries[i] ?? [] })));
    groups.push({ config, specs, shared: split.shared });
    for (const [spec, own] of split.own) ownContext.set(spec, own);
  }
  for (const [spec, { test, base }] of named) {
    const ctx: TestContext = { test, fileDir: `files/${base}`, files: new Map(), out: new Map() };
    files.set(spec, specSource(ctx, input, ownContext.get(spec) ?? []));
    for (const [relative, content] of ctx.out) files.set(relative, content);
    specFiles.set(test.id, spec);
    outlines.set(test.id, outlineSteps(test.steps));
    if (testNeedsPage(test)) browser = true;
  }
  if (groups.length === 0) {
    const config = input.config ?? resolveRunConfig();
    groups.push({ config, specs: [], shared: contextEntries(config) });
  }
  const groupList = groups;
  const visual = input.tests.some((test) => usesAction(test, new Set(['assertScreenshot'])));
  const network = networkProjectFiles((names) => input.tests.some((test) => usesAction(test, names)));

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
          ...network.dependencies,
        },
      },
      null,
      2,
    )}\n`,
  );
  files.set('playwright.config.ts', configSource(groupList, groupList.length === 1));
  files.set(RUNTIME_FILE, runtime());
  for (const [file, source] of runtimeParts()) files.set(file, source);
  files.set(EMAIL_RUNTIME_FILE, emailRuntime());
  files.set(PAGE_RUNTIME_FILE, pageRuntime());
  files.set(TABS_RUNTIME_FILE, tabsRuntime());
  files.set(HEAL_RUNTIME_FILE, healRuntime());
  files.set(SUGGEST_RUNTIME_FILE, suggestRuntime());
  if (visual) files.set(VISUAL_RUNTIME_FILE, visualRuntime());
  for (const [file, source] of network.files) files.set(file, source);
  if (input.tests.some((test) => usesAction(test, VITALS_ACTIONS)))
    files.set(VITALS_RUNTIME_FILE, vitalsRuntime());
  files.set('README.md', readme(input));
  files.set('.gitignore', 'node_modules/\ntest-results/\nplaywright-report/\n');

  return {
    files,
    specFiles,
    outlines,
    requirements: { browser, video: groupList.some((group) => group.config.use.video !== 'off') },
  };
}
