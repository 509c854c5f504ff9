import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { type ResolvedRunConfig, type RunConfig, resolveRunConfig, type StepNode } from '@stepdeck/contract';
import { outlineSteps, stepTitle } from './outline.ts';
import type { CompilableTest, CompiledProject, CompileInput } from './types.ts';

export type { StepOutline } from './outline.ts';
export type { CompilableTest, CompiledProject, CompileInput } from './types.ts';

/**
 * The single place where steps become code: turns tests into a Playwright Test project
 * (`package.json`, `playwright.config.ts`, `stepdeck-runtime.ts`, one `tests/*.spec.ts` per
 * test, `files/...` for uploads). The output runs unmodified with `npx playwright test`.
 * Every user string enters the code through `JSON.stringify`; secrets are never written.
 */

export const RUNTIME_FILE = 'stepdeck-runtime.ts';
export const TEST_ID_ANNOTATION = 'stepdeck-test-id';
/** Written by the runtime when an assertion fails (see `recordExpectation`). */
export const EXPECTATION_ANNOTATION = 'stepdeck-expectation';
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];
/** `use.actionTimeout: 0` means this default (the spec). */
export const DEFAULT_ACTION_TIMEOUT_MS = 60_000;

const require = createRequire(import.meta.url);

/** The environment variable holding a project secret at run time (same rule as the runtime). */
export function secretEnvVar(name: string): string {
  return `STEPDECK_SECRET_${name.replace(/[^A-Za-z0-9_]/g, '_')}`;
}

function playwrightVersion(): string {
  try {
    const manifest = JSON.parse(readFileSync(require.resolve('@playwright/test/package.json'), 'utf8')) as {
      version: string;
    };
    return manifest.version;
  } catch {
    return '1.65.1';
  }
}

let runtimeSource: string | undefined;
function runtime(): string {
  runtimeSource ??= readFileSync(new URL('./runtime/stepdeck-runtime.ts', import.meta.url), 'utf8');
  return runtimeSource;
}

/** A JS literal for any JSON value; U+2028/2029 are escaped so nothing can end a comment line. */
const lit = (value: unknown): string =>
  value === undefined
    ? 'undefined'
    : JSON.stringify(value)
        .replace(/\u2028/g, '\\u2028')
        .replace(/\u2029/g, '\\u2029');

/** Lower-case ASCII slug for file names; never empty, never `..`. */
export function slug(value: string, max = 60): string {
  const cleaned = value
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, max)
    .replace(/-+$/g, '');
  return cleaned || 'test';
}

/** A single path segment that keeps the original name where it is safe (uploads keep their name). */
function safeSegment(value: string): string {
  const base = value.split(/[\\/]/).pop() ?? '';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we strip
  const cleaned = base.replace(/[\u0000-\u001f<>:"|?*]/g, '_').slice(0, 120);
  return cleaned === '' || cleaned === '.' || cleaned === '..' ? 'file' : cleaned;
}

// Actions that need the browser page.
const PAGE_ACTIONS = new Set([
  'goto',
  'click',
  'dblclick',
  'hover',
  'fill',
  'press',
  'check',
  'uncheck',
  'selectOption',
  'setInputFiles',
  'waitFor',
  'assertVisible',
  'assertHidden',
  'assertText',
  'assertValue',
  'assertUrl',
  'assertTitle',
  'assertCount',
  'extract',
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

export function testNeedsPage(test: CompilableTest): boolean {
  return test.type !== 'api' || usesAction(test, PAGE_ACTIONS);
}

interface FileRef {
  /** Project-relative path written into the project. */
  relative: string;
  content: Buffer;
}

interface TestContext {
  test: CompilableTest;
  fileDir: string;
  files: Map<string, FileRef>;
  /** Files written for this test (relative path → content). */
  out: Map<string, Buffer>;
}

function fileFor(ctx: TestContext, step: StepNode, filename: string): string | null {
  const key = `${step.id}\u0000${filename}`;
  const known = ctx.files.get(key);
  if (known) return known.relative;
  const match =
    ctx.test.files.find((file) => file.stepId === step.id && file.filename === filename) ??
    ctx.test.files.find((file) => file.filename === filename);
  if (!match) return null;
  const relative = `${ctx.fileDir}/${safeSegment(step.id)}/${safeSegment(filename)}`;
  ctx.files.set(key, { relative, content: match.content });
  ctx.out.set(relative, match.content);
  return relative;
}

/** The code of one action; `s` is the scope variable of the step's body. */
function actionCode(ctx: TestContext, step: StepNode, indent: string, depth: number): string[] {
  const action = step.action;
  const t = (value: string) => `sd.t(${lit(value)})`;
  const loc = (selector: string) => `page.locator(${t(selector)})`;
  switch (action.name) {
    case 'goto':
      return [`await page.goto(${t(action.url)});`];
    case 'click':
    case 'dblclick':
    case 'hover':
    case 'check':
    case 'uncheck':
      return [`await ${loc(action.selector)}.${action.name}();`];
    case 'fill':
      return [`await ${loc(action.selector)}.fill(${t(action.value)});`];
    case 'press':
      return action.selector
        ? [`await ${loc(action.selector)}.press(${t(action.key)});`]
        : [`await page.keyboard.press(${t(action.key)});`];
    case 'selectOption':
      return [`await ${loc(action.selector)}.selectOption(${t(action.value)});`];
    case 'setInputFiles': {
      const paths: string[] = [];
      for (const filename of action.files) {
        const relative = fileFor(ctx, step, filename);
        if (!relative) {
          return [
            `throw new Error(${lit(`setInputFiles: the file "${filename}" was not uploaded for this step`)});`,
          ];
        }
        paths.push(`sd.file(${lit(relative)})`);
      }
      return [`await ${loc(action.selector)}.setInputFiles([${paths.join(', ')}]);`];
    }
    case 'wait':
      return [`await sd.wait(${lit(action.ms)});`];
    case 'waitFor':
      return [`await ${loc(action.selector)}.waitFor({ state: ${lit(action.state ?? 'visible')} });`];
    case 'assertVisible':
      return [`await expect(${loc(action.selector)}).toBeVisible();`];
    case 'assertHidden':
      return [`await expect(${loc(action.selector)}).toBeHidden();`];
    case 'assertText':
      return [
        `await expect(${loc(action.selector)}).${action.exact ? 'toHaveText' : 'toContainText'}(${t(action.value)});`,
      ];
    case 'assertValue':
      return [`await expect(${loc(action.selector)}).toHaveValue(${t(action.value)});`];
    case 'assertUrl':
      // An absolute URL or a path is matched exactly (paths against baseURL); anything else is a substring.
      return /^([a-z][a-z0-9+.-]*:|\/)/i.test(action.value)
        ? [`await expect(page).toHaveURL(${t(action.value)});`]
        : [`await expect(page).toHaveURL((url) => url.href.includes(${t(action.value)}));`];
    case 'assertTitle':
      return [`await expect(page).toHaveTitle(${t(action.value)});`];
    case 'assertCount':
      return [`await expect(${loc(action.selector)}).toHaveCount(${lit(action.value)});`];
    case 'extract': {
      const read =
        action.attribute === 'value'
          ? `await ${loc(action.selector)}.inputValue()`
          : action.attribute
            ? `(await ${loc(action.selector)}.getAttribute(${t(action.attribute)})) ?? ''`
            : `((await ${loc(action.selector)}.textContent()) ?? '').trim()`;
      return [`sd.setVar(${lit(action.variable)}, ${read});`];
    }
    case 'screenshot': {
      const label = safeSegment(action.label?.trim() || stepTitle(step));
      const file = /\.png$/i.test(label) ? label : `${label}.png`;
      // Written to the test's output folder, then attached under its label.
      return [
        `await testInfo.attach(${lit(file)}, { path: await sd.screenshotFile(page, ${lit(file)}), contentType: 'image/png' });`,
      ];
    }
    case 'request': {
      const options = [`method: ${lit(action.method)}`];
      if (action.headers) options.push(`headers: sd.tv(${lit(action.headers)})`);
      if (action.body !== undefined) options.push(`data: sd.tv(${lit(action.body)})`);
      return [
        `await sd.recordResponse(await request.fetch(${t(action.url)}, { ${options.join(', ')} }), ${lit(action.variable)});`,
      ];
    }
    case 'assertStatus':
      return [
        `expect(sd.response().status, ${lit(`response status should be ${action.value}`)}).toBe(${lit(action.value)});`,
      ];
    case 'assertJson':
      return [
        `expect(readJsonPath(sd.response().body, ${lit(action.path)}), ${lit(`JSON at ${action.path}`)}).toEqual(sd.tv(${lit(action.value ?? null)}));`,
      ];
    case 'waitForEmail': {
      const options = [`inbox: ${lit(action.inbox)}`];
      if (action.subjectContains !== undefined)
        options.push(`subjectContains: ${lit(action.subjectContains)}`);
      if (action.from !== undefined) options.push(`from: ${lit(action.from)}`);
      if (action.timeoutMs !== undefined) options.push(`timeoutMs: ${lit(action.timeoutMs)}`);
      return [`sd.setVar(${lit(action.variable)}, await sd.waitForEmail({ ${options.join(', ')} }));`];
    }
    case 'gotoEmailLink':
      return [`await page.goto(sd.emailLink(${lit(action.variable)}, ${lit(action.contains)}));`];
    case 'group':
      return (step.children ?? []).flatMap((child) => stepCode(ctx, child, indent, depth + 1));
    default: {
      const name = (action as { name: string }).name;
      return [`throw new Error(${lit(`unknown step action "${name}"`)});`];
    }
  }
}

function stepCode(ctx: TestContext, step: StepNode, indent: string, depth: number): string[] {
  const scope = `s${depth}`;
  const inner = `s${depth + 1}`;
  const condition = step.condition ?? null;
  const body = actionCode(ctx, step, `${indent}  `, depth);
  return [
    `${indent}await sd.step(${scope}, ${lit(stepTitle(step))}, ${lit(condition)}, async (${inner}) => {`,
    ...body.map((line) => (line.startsWith(indent) ? line : `${indent}  ${line}`)),
    `${indent}});`,
  ];
}

function specSource(ctx: TestContext, input: CompileInput): string {
  const { test } = ctx;
  const needsPage = testNeedsPage(test);
  const needsRequest = usesAction(test, new Set(['request']));
  const fixtures = [needsPage && 'page', needsRequest && 'request'].filter(Boolean).join(', ');
  const body = test.steps.flatMap((step) => stepCode(ctx, step, '  ', 0));
  const runtimeImports = ['Stepdeck', usesAction(test, new Set(['assertJson'])) && 'readJsonPath']
    .filter(Boolean)
    .join(', ');
  const init = [`vars: ${lit(test.vars ?? {})}`, `parameters: ${lit(test.parameters ?? {})}`];
  if (input.inboxApi?.baseUrl) init.push(`inboxApiUrl: ${lit(input.inboxApi.baseUrl)}`);
  return [
    `// Generated by Stepdeck from test ${lit(test.name)} (${lit(test.id)}).`,
    `import { expect, test } from '@playwright/test';`,
    `import { ${runtimeImports} } from '../${RUNTIME_FILE}';`,
    '',
    `test(${lit(test.name)}, { annotation: [{ type: ${lit(TEST_ID_ANNOTATION)}, description: ${lit(test.id)} }] }, async ({ ${fixtures} }, testInfo) => {`,
    `  const sd = new Stepdeck(testInfo, { ${init.join(', ')} });`,
    `  const s0 = sd.root;`,
    ...body,
    `  sd.finish();`,
    `});`,
    '',
  ].join('\n');
}

function projectUse(config: ResolvedRunConfig): Record<string, unknown> {
  return {
    browserName: config.use.browserName,
    ...(config.use.baseURL ? { baseURL: config.use.baseURL } : {}),
    headless: true,
    trace: config.use.trace,
    video: config.use.video,
    screenshot: config.use.screenshot,
    actionTimeout: config.use.actionTimeout === 0 ? DEFAULT_ACTION_TIMEOUT_MS : config.use.actionTimeout,
    // 0 is Playwright's "no limit", as in the spec.
    navigationTimeout: config.use.navigationTimeout,
    viewport: { width: config.viewport.width, height: config.viewport.height },
  };
}

function configSource(
  groups: Array<{ config: ResolvedRunConfig; specs: string[] }>,
  single: boolean,
): string {
  const workers = Math.max(...groups.map((group) => group.config.workers));
  const projects = groups.map((group, index) => {
    const { config } = group;
    const name = single ? 'stepdeck' : `stepdeck-${index + 1}`;
    const lines = [`    {`, `      name: ${lit(name)},`];
    if (!single) {
      const patterns = group.specs.map(
        (spec) => `/(^|[\\\\/])${path.posix.basename(spec).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$/`,
      );
      lines.push(`      testMatch: [${patterns.join(', ')}],`);
    }
    lines.push(
      `      retries: ${lit(config.retries)},`,
      `      timeout: ${lit(config.timeout)},`,
      `      repeatEach: ${lit(config.repeatEach)},`,
      `      use: {`,
      ...Object.entries(projectUse(config)).map(([key, value]) => `        ${key}: ${lit(value)},`),
      ...(config.use.browserName === 'chromium' ? ['        launchOptions: chromiumLaunchOptions,'] : []),
      `      },`,
      `    },`,
    );
    return lines.join('\n');
  });
  return [
    `// Generated by Stepdeck. Run with: npx playwright test`,
    `import { existsSync } from 'node:fs';`,
    `import { defineConfig } from '@playwright/test';`,
    '',
    `// Chromium: CHROMIUM_PATH, else the Debian package, else Playwright's own browser.`,
    `const executablePath = process.env.CHROMIUM_PATH || (existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined);`,
    `const chromiumLaunchOptions = {`,
    `  ...(executablePath ? { executablePath } : {}),`,
    `  args: ${lit(CHROMIUM_ARGS)},`,
    `};`,
    '',
    `export default defineConfig({`,
    `  testDir: './tests',`,
    `  outputDir: './test-results',`,
    `  forbidOnly: true,`,
    `  fullyParallel: false,`,
    `  workers: ${lit(workers)},`,
    `  reporter: [['list'], ['html', { open: 'never', outputFolder: 'playwright-report' }]],`,
    `  projects: [`,
    ...projects,
    `  ],`,
    `});`,
    '',
  ].join('\n');
}

function readme(input: CompileInput): string {
  const secrets = [...input.secretNames].sort();
  return [
    '# Stepdeck tests (Playwright)',
    '',
    'Generated by Stepdeck. Run with:',
    '',
    '```sh',
    'npm install',
    'npx playwright test',
    '```',
    '',
    'Environment:',
    '',
    "- `CHROMIUM_PATH`: the Chromium to use (default `/usr/bin/chromium` when present, else Playwright's own).",
    '- `STEPDECK_API_URL`, `STEPDECK_API_KEY`: the Stepdeck service and a key with `emailInbox:read`, for email steps.',
    ...(secrets.length > 0
      ? [
          '- Secrets are never written into these files; set them as environment variables:',
          ...secrets.map((name) => `  - \`${secretEnvVar(name)}\``),
        ]
      : []),
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

  files.set(
    'package.json',
    `${JSON.stringify(
      {
        name: 'stepdeck-tests',
        private: true,
        type: 'module',
        scripts: { test: 'playwright test' },
        devDependencies: { '@playwright/test': playwrightVersion() },
      },
      null,
      2,
    )}\n`,
  );
  files.set('playwright.config.ts', configSource(groupList, groupList.length === 1));
  files.set(RUNTIME_FILE, runtime());
  files.set('README.md', readme(input));
  files.set('.gitignore', 'node_modules/\ntest-results/\nplaywright-report/\n');

  return {
    files,
    specFiles,
    outlines,
    requirements: { browser, video: groupList.some((group) => group.config.use.video !== 'off') },
  };
}
