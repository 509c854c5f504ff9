import path from 'node:path';
import { resolveRunConfig, type StepAction, stepActionNames } from '@stepdeck/contract';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { type CompilableTest, compileProject, linkPlaywright, writeProject } from '../../src/runner/index.ts';
import { group, removeTempDirs, step, tempDir, uiTest } from './fixtures.ts';

// biome-ignore lint/suspicious/noTemplateCurlyInString: the placeholder is the attack being tested
const EVIL = 'a"b\'c`${process.exit(1)}`\\ */ </script>\u2028process.exit(2)\n// x';

/** One step of every action, with hostile strings wherever a string goes. */
function everyAction(): CompilableTest {
  const actions: StepAction[] = [
    { name: 'goto', url: `/${EVIL}` },
    { name: 'click', selector: EVIL },
    { name: 'dblclick', selector: EVIL },
    { name: 'hover', selector: EVIL },
    { name: 'fill', selector: EVIL, value: `${EVIL}{{secrets.TOKEN}}` },
    { name: 'press', key: 'Enter' },
    { name: 'press', selector: EVIL, key: 'Tab' },
    { name: 'check', selector: EVIL },
    { name: 'uncheck', selector: EVIL },
    { name: 'selectOption', selector: EVIL, value: EVIL },
    { name: 'setInputFiles', selector: EVIL, files: ['../../etc/passwd', 'missing.txt'] },
    { name: 'wait', ms: 10 },
    { name: 'waitFor', selector: EVIL, state: 'hidden' },
    { name: 'assertVisible', selector: EVIL },
    { name: 'assertHidden', selector: EVIL },
    { name: 'assertText', selector: EVIL, value: EVIL, exact: true },
    { name: 'assertValue', selector: EVIL, value: EVIL },
    { name: 'assertUrl', value: EVIL },
    { name: 'assertTitle', value: EVIL },
    { name: 'assertCount', selector: EVIL, value: 2 },
    { name: 'extract', selector: EVIL, variable: EVIL, attribute: EVIL },
    { name: 'screenshot', label: EVIL },
    {
      name: 'request',
      method: 'POST',
      url: EVIL,
      headers: { [EVIL]: EVIL },
      body: { [EVIL]: [EVIL, 1, null] },
      variable: EVIL,
    },
    { name: 'assertStatus', value: 200 },
    { name: 'assertJson', path: EVIL, value: { [EVIL]: EVIL } },
    { name: 'waitForEmail', inbox: EVIL, subjectContains: EVIL, from: EVIL, timeoutMs: 5, variable: EVIL },
    { name: 'gotoEmailLink', variable: EVIL, contains: EVIL },
    { name: 'mockRoute', url: `**/${EVIL}`, headers: { [EVIL]: EVIL }, json: { [EVIL]: [EVIL] }, times: 2 },
    { name: 'mockRoute', url: `/${EVIL}/`, abort: true },
    {
      name: 'waitForResponse',
      url: EVIL,
      status: 200,
      jsonPath: EVIL,
      equals: { [EVIL]: EVIL },
      variable: EVIL,
    },
    { name: 'totp', secret: '{{secrets.TOKEN}}', variable: EVIL, digits: 8, algorithm: 'SHA512' },
    { name: 'assertAccessible', selector: EVIL, impact: 'minor', skipRules: [EVIL] },
    { name: 'measureVitals', label: EVIL },
    { name: 'assertVitals', lcpMs: 2500, cls: 0.1 },
    { name: 'reload' },
    { name: 'goBack' },
    { name: 'goForward' },
    { name: 'waitForPopup', selector: EVIL, action: 'press', key: EVIL, timeout: 1000, frame: [EVIL, EVIL] },
    { name: 'switchTab', title: EVIL },
    { name: 'closeTab', index: 1 },
    { name: 'click', selector: EVIL, frame: EVIL },
    { name: 'type', selector: EVIL, value: EVIL, delay: 5 },
    { name: 'focus', selector: EVIL },
    { name: 'blur', selector: EVIL },
    { name: 'scrollIntoView', selector: EVIL },
    { name: 'dragTo', selector: EVIL, target: EVIL },
    { name: 'dispatchEvent', selector: EVIL, event: EVIL, eventInit: { [EVIL]: EVIL } },
    { name: 'assertTexts', selector: EVIL, values: [EVIL, EVIL], not: true, timeout: 5 },
    { name: 'assertTexts', selector: EVIL, values: [EVIL], exact: true },
    { name: 'assertChecked', selector: EVIL, checked: false, timeout: 5 },
    { name: 'assertEnabled', selector: EVIL, not: true },
    { name: 'assertDisabled', selector: EVIL },
    { name: 'assertClass', selector: EVIL, value: EVIL, exact: true },
    { name: 'assertClass', selector: EVIL, value: EVIL, not: true },
    { name: 'assertAttribute', selector: EVIL, attribute: EVIL },
    { name: 'assertAttribute', selector: EVIL, attribute: EVIL, value: EVIL, regex: true, timeout: 5 },
    { name: 'assertCss', selector: EVIL, property: EVIL, value: EVIL },
    { name: 'evaluate', script: EVIL, variable: EVIL },
    { name: 'evaluate', script: EVIL },
    { name: 'assertScript', script: EVIL },
    { name: 'assertScript', script: EVIL, equals: { [EVIL]: EVIL }, not: true, timeout: 5 },
    { name: 'assertScript', script: EVIL, matches: EVIL },
    { name: 'assertScreenshot', selector: EVIL, mask: [EVIL], maxDiffPixels: 3, fullPage: true },
    { name: 'assertScreenshot' },
  ];
  const steps = actions.map((action, index) =>
    step(`${EVIL} ${index}`, action, { condition: { type: 'if', variable: EVIL, equals: { [EVIL]: EVIL } } }),
  );
  return uiTest('12345678-0000-4000-8000-000000000001', EVIL, [group(EVIL, steps, { type: 'alwaysRun' })], {
    vars: { [EVIL]: EVIL },
    parameters: { [EVIL]: EVIL },
    files: [{ filename: '../../etc/passwd', content: Buffer.from('x'), stepId: steps[10]?.id ?? '' }],
  });
}

describe('compileProject', () => {
  afterAll(removeTempDirs);

  it('covers every action of the vocabulary', () => {
    const covered = new Set([
      'group',
      ...everyAction().steps[0]!.children!.map((child) => child.action.name),
    ]);
    expect([...stepActionNames].filter((name) => !covered.has(name))).toEqual([]);
  });

  it('emits valid, type-correct TypeScript for hostile input (checked by tsc against Playwright types)', async () => {
    const project = compileProject({
      tests: [everyAction(), uiTest('12345678-0000-4000-8000-000000000002', EVIL, [])],
      config: null,
      secretNames: ['TOKEN'],
      inboxApi: { baseUrl: 'http://127.0.0.1:1' },
    });
    const dir = await tempDir('typecheck');
    await writeProject(dir, project);
    await linkPlaywright(dir);
    const files = [...project.files.keys()]
      .filter((file) => file.endsWith('.ts'))
      .map((file) => path.join(dir, file));
    const program = ts.createProgram(files, {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      allowImportingTsExtensions: true,
      skipLibCheck: true,
      types: ['node'],
      typeRoots: [path.join(dir, 'node_modules', '@types')],
    });
    const diagnostics = ts
      .getPreEmitDiagnostics(program)
      .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    expect(diagnostics).toEqual([]);
    // The hostile strings only ever appear inside literals: no statement calls process.exit.
    for (const [file, content] of project.files) {
      if (!file.endsWith('.spec.ts')) continue;
      const source = ts.createSourceFile(file, String(content), ts.ScriptTarget.ES2022, true);
      const calls: string[] = [];
      const visit = (node: ts.Node) => {
        const callee = ts.isCallExpression(node) ? node.expression : undefined;
        if (
          callee &&
          (ts.isIdentifier(callee) ||
            (ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression)))
        ) {
          calls.push(callee.getText(source));
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
      expect(calls).toContain('sd.finish');
      expect(calls.filter((call) => call.includes('process.exit'))).toEqual([]);
    }
  });

  it('writes safe unique file names and upload files inside the project', () => {
    const project = compileProject({
      tests: [
        everyAction(),
        { ...everyAction(), id: '12345678-0000-4000-8000-000000000009' },
        uiTest('x', '', []),
      ],
      config: null,
      secretNames: [],
    });
    const specs = [...project.specFiles.values()];
    expect(new Set(specs).size).toBe(3);
    for (const file of project.files.keys()) {
      expect(file).not.toMatch(/(^|\/)\.\.(\/|$)/);
      expect(path.posix.normalize(file)).toBe(file);
    }
    for (const spec of specs) expect(spec).toMatch(/^tests\/[a-z0-9-]+\.spec\.ts$/);
    const uploads = [...project.files.keys()].filter((file) => file.startsWith('files/'));
    expect(uploads).toHaveLength(2);
    expect(uploads.every((file) => file.endsWith('/passwd'))).toBe(true);
    const spec = String(project.files.get(specs[0] ?? ''));
    expect(spec).toContain('the file \\"missing.txt\\" was not uploaded');
  });

  it('maps the run configuration, one Playwright project per distinct worker config', () => {
    const tests = [
      uiTest('t1', 'one', [], {
        config: { use: { actionTimeout: 0, navigationTimeout: 0, baseURL: 'http://a.test' }, workers: 3 },
      }),
      uiTest('t2', 'two', [], {
        config: {
          use: { actionTimeout: 1234, navigationTimeout: 99, trace: 'on', video: 'on-first-retry' },
          retries: 2,
        },
      }),
      uiTest('t3', 'three', [], {
        config: { use: { actionTimeout: 0, navigationTimeout: 0, baseURL: 'http://a.test' }, workers: 3 },
      }),
    ];
    const perTest = String(
      compileProject({ tests, config: null, secretNames: [] }).files.get('playwright.config.ts'),
    );
    expect(perTest.match(/name: "stepdeck-\d"/g)).toEqual(['name: "stepdeck-1"', 'name: "stepdeck-2"']);
    expect(perTest).toContain('workers: 3,');
    expect(perTest).toContain('actionTimeout: 60000,');
    expect(perTest).toContain('actionTimeout: 1234,');
    expect(perTest).toContain('navigationTimeout: 0,');
    expect(perTest).toContain('navigationTimeout: 99,');
    expect(perTest).toContain('retries: 2,');
    expect(perTest).toContain('trace: "on",');
    expect(perTest).toContain('video: "on-first-retry",');
    expect(perTest).toContain('baseURL: "http://a.test",');
    expect(perTest).toContain('headless: true,');
    expect(perTest).toContain(
      'testMatch: [/(^|[\\\\/])one-t1\\.spec\\.ts$/, /(^|[\\\\/])three-t3\\.spec\\.ts$/],',
    );

    // Context options alone (locale, device) do not make a project: Playwright would launch a
    // browser per project. Each test that differs carries its context in its spec's test.use.
    const contexts = compileProject({
      tests: [
        uiTest('c1', 'plain', [], { config: { use: { baseURL: 'http://a.test' } } }),
        uiTest('c2', 'german', [], { config: { use: { baseURL: 'http://a.test' }, locale: 'de-DE' } }),
        uiTest('c3', 'phone', [], {
          config: { use: { baseURL: 'http://a.test' }, device: 'Pixel 7', colorScheme: 'dark' },
        }),
      ],
      config: null,
      secretNames: [],
    });
    const contextConfig = String(contexts.files.get('playwright.config.ts'));
    expect(contextConfig.match(/name: /g)).toHaveLength(1);
    expect(contextConfig).toContain('baseURL: "http://a.test",');
    expect(contextConfig).not.toContain('locale');
    expect(contextConfig).not.toContain('devices');
    const specOf = (id: string) => String(contexts.files.get(contexts.specFiles.get(id) ?? ''));
    expect(specOf('c1')).toContain(
      'const context = {\n  viewport: {"width":1920,"height":1080},\n};\ntest.use(context);',
    );
    expect(specOf('c1')).toContain('new Stepdeck(testInfo, { vars: {}, parameters: {}, context });');
    expect(specOf('c2')).toContain(
      'const context = {\n  viewport: {"width":1920,"height":1080},\n  locale: "de-DE",\n};',
    );
    // The device first (without its browser type, a worker option), then the test's own fields.
    expect(specOf('c3')).toContain("import { devices, expect, test } from '@playwright/test';");
    expect(specOf('c3')).toMatch(
      /const context = \{\n {2}\.\.\.\(\(\{ defaultBrowserType: _browserType, \.\.\.options \}\) => options\)\(devices\["Pixel 7"\]\),\n {2}baseURL: "http:\/\/a\.test",[\s\S]*colorScheme: "dark",\n\};/,
    );

    // A run config applies to every test: a single project.
    const run = resolveRunConfig({
      use: { browserName: 'chromium', screenshot: 'on', headless: false },
      timeout: 5000,
      repeatEach: 3,
      viewport: { width: 640, height: 480 },
    });
    const compiled = compileProject({ tests, config: run, secretNames: [] });
    const single = String(compiled.files.get('playwright.config.ts'));
    expect(single.match(/name: /g)).toHaveLength(1);
    expect(single).not.toContain('testMatch');
    expect(single).toContain('timeout: 5000,');
    expect(single).toContain('repeatEach: 3,');
    expect(single).toContain('screenshot: "on",');
    expect(single).toContain('headless: true,');
    expect(single).toContain('viewport: {"width":640,"height":480},');
    expect(single).toContain('"--disable-quic"');
    expect(compiled.requirements).toEqual({ browser: true, video: false });
  });
});
