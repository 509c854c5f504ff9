import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CompilableTest,
  type CompiledProject,
  compileProject,
  type ExecutedTest,
  type ExecutionResult,
  executeProject,
  linkPlaywright,
  writeProject,
} from '../../src/runner/index.ts';
import { exportedRunEnv, removeTempDirs, step, tempDir, uiTest } from './fixtures.ts';
import { MFA_KEY, MFA_URI, type NetworkSite, startNetworkSite } from './network-site.ts';

/**
 * Network mocks and responses, TOTP codes and accessibility checks in real Chromium against a
 * loopback site: each step passes where it should and fails naming what was expected and found;
 * the passing tests also run as an exported project with plain `npx playwright test`.
 */

const run = promisify(execFile);
let serial = 0;
const id = () => `c0000000-0000-4000-8000-${String(++serial).padStart(12, '0')}`;
const open = (url: string) => step(`Open ${url}`, { name: 'goto', url });

const passing = {
  mockJson: {
    id: id(),
    name: 'Mocked items are shown',
    steps: [
      step('Mock items', {
        name: 'mockRoute',
        url: '**/api/items',
        json: { items: [{ name: '{{vars.fruit}}' }] },
      }),
      open('/items'),
      step('Only the mock', { name: 'assertTexts', selector: '#items li', values: ['Mango'], exact: true }),
    ],
  },
  mockAbort: {
    id: id(),
    name: 'Aborted items show the error state',
    steps: [
      step('Network down', { name: 'mockRoute', url: '/\\/api\\/items$/', abort: true }),
      open('/items'),
      step('Error shown', {
        name: 'assertText',
        selector: '#error',
        value: 'Could not load items: Failed to fetch',
      }),
      step('No items', { name: 'assertCount', selector: '#items li', value: 0 }),
    ],
  },
  mockStatus: {
    id: id(),
    name: 'A mocked server error, once',
    steps: [
      step('Fail once', { name: 'mockRoute', url: '/api/items', status: 503, body: 'down', times: 1 }),
      open('/items'),
      step('Error shown', { name: 'assertText', selector: '#error', value: 'HTTP 503' }),
      step('More', { name: 'click', selector: '#more' }),
      step('Second call is real', {
        name: 'assertTexts',
        selector: '#items li',
        values: ['Plum'],
        exact: true,
      }),
    ],
  },
  responses: {
    id: id(),
    name: 'Responses of the page',
    steps: [
      open('/items'),
      step('Items loaded', {
        name: 'waitForResponse',
        url: '**/api/items',
        status: 200,
        jsonPath: '$.items[1].name',
        equals: 'Pear',
        variable: 'loaded',
      }),
      step('Body kept', {
        name: 'assertText',
        selector: '#items li >> nth=0',
        value: '{{vars.loaded.items.0.name}}',
      }),
      step('More', { name: 'click', selector: '#more' }),
      step('Page two', {
        name: 'waitForResponse',
        url: '/\\/api\\/items\\?page=2$/',
        jsonPath: '$.items[0].name',
      }),
    ],
  },
  totp: {
    id: id(),
    name: 'Logs in with a one-time code',
    steps: [
      open('/login'),
      step('Code from the URI', { name: 'totp', secret: '{{secrets.MFA_URI}}', variable: 'code' }),
      step('Type it', { name: 'fill', selector: '#code', value: '{{vars.code}}' }),
      step('Verify', { name: 'click', selector: '#verify' }),
      step('Welcome', { name: 'assertText', selector: '#result', value: 'Welcome, Ada' }),
      step('Code from the key', {
        name: 'totp',
        secret: '{{secrets.MFA_KEY}}',
        variable: 'again',
        digits: 8,
        algorithm: 'SHA256',
      }),
      open('/login'),
      step('Type it again', { name: 'fill', selector: '#code', value: '{{vars.again}}' }),
      step('Verify again', { name: 'click', selector: '#verify' }),
      step('Welcome again', { name: 'assertText', selector: '#result', value: 'Welcome, Ada' }),
    ],
  },
  accessible: {
    id: id(),
    name: 'Accessible pages pass',
    steps: [
      open('/accessible'),
      step('Whole page', { name: 'assertAccessible', impact: 'minor' }),
      open('/inaccessible'),
      step('The good part', { name: 'assertAccessible', selector: '#good', impact: 'minor' }),
      step('Known issues skipped', {
        name: 'assertAccessible',
        impact: 'critical',
        skipRules: ['image-alt', 'label'],
      }),
    ],
  },
};

const failing = {
  status: {
    id: id(),
    name: 'Wrong status',
    steps: [open('/items'), step('Created', { name: 'waitForResponse', url: '**/api/items', status: 201 })],
  },
  jsonPath: {
    id: id(),
    name: 'Wrong item',
    steps: [
      open('/items'),
      step('Banana first', {
        name: 'waitForResponse',
        url: '**/api/items',
        jsonPath: '$.items[0].name',
        equals: 'Banana',
      }),
    ],
  },
  none: {
    id: id(),
    name: 'No such response',
    steps: [open('/items'), step('Orders', { name: 'waitForResponse', url: '**/api/orders', timeout: 500 })],
  },
  otherMethod: {
    id: id(),
    name: 'Only a POST answers',
    steps: [
      open('/items'),
      step('Posted', { name: 'waitForResponse', url: '**/api/items', method: 'POST', timeout: 500 }),
    ],
  },
  consumed: {
    id: id(),
    name: 'One response is matched once',
    steps: [
      open('/items'),
      step('First load', { name: 'waitForResponse', url: '**/api/items*' }),
      step('A second', { name: 'waitForResponse', url: '**/api/items*', timeout: 500 }),
    ],
  },
  badCode: {
    id: id(),
    name: 'Code with a wrong option',
    steps: [step('Code', { name: 'totp', secret: '{{secrets.MFA_URI}}', variable: 'code', digits: 6 })],
  },
  wrongAlgorithm: {
    id: id(),
    name: 'Code with the wrong algorithm',
    steps: [
      open('/login'),
      step('SHA1 code', { name: 'totp', secret: '{{secrets.MFA_KEY}}', variable: 'code', digits: 8 }),
      step('Type it', { name: 'fill', selector: '#code', value: '{{vars.code}}' }),
      step('Verify', { name: 'click', selector: '#verify' }),
      step('Welcome', { name: 'assertText', selector: '#result', value: 'Welcome', timeout: 2000 }),
    ],
  },
  inaccessible: {
    id: id(),
    name: 'Inaccessible page',
    steps: [open('/inaccessible'), step('Accessible', { name: 'assertAccessible' })],
  },
  unknownRule: {
    id: id(),
    name: 'Unknown rule',
    steps: [
      open('/accessible'),
      step('Skip a typo', { name: 'assertAccessible', skipRules: ['colour-contrast'] }),
    ],
  },
  scoped: {
    id: id(),
    name: 'Inaccessible part',
    steps: [
      open('/inaccessible'),
      step('Bad part', { name: 'assertAccessible', selector: '#bad', skipRules: ['label'] }),
    ],
  },
};

const secrets = { STEPDECK_SECRET_MFA_URI: MFA_URI, STEPDECK_SECRET_MFA_KEY: MFA_KEY };

describe('network, TOTP and accessibility steps (real Chromium)', () => {
  let site: NetworkSite;
  let result: ExecutionResult;
  let project: CompiledProject;
  const tests = (group: Record<string, { id: string; name: string; steps: CompilableTest['steps'] }>) =>
    Object.values(group).map((test) =>
      uiTest(test.id, test.name, test.steps, {
        vars: { fruit: 'Mango' },
        config: {
          use: { baseURL: site.url, actionTimeout: 10_000, trace: 'off', screenshot: 'off', video: 'off' },
        },
      }),
    );
  const byId = (testId: string): ExecutedTest => {
    const found = result.tests.find((test) => test.testId === testId);
    if (!found) throw new Error(`no result for ${testId}`);
    return found;
  };
  const failure = (testId: string) => {
    const test = byId(testId);
    expect(test.status).toBe('failed');
    return test;
  };

  beforeAll(async () => {
    site = await startNetworkSite();
    project = compileProject({
      tests: [...tests(passing), ...tests(failing)],
      config: null,
      secretNames: ['MFA_URI', 'MFA_KEY'],
    });
    result = await executeProject({
      dir: await tempDir('network-steps'),
      project,
      env: secrets,
      signal: new AbortController().signal,
    });
  }, 300_000);
  afterAll(async () => {
    await site?.close();
    await removeTempDirs();
  });

  it('runs every passing test green', () => {
    for (const test of Object.values(passing)) {
      const executed = byId(test.id);
      const failed = executed.steps.filter((entry) => entry.status !== 'passed');
      expect(failed.map((entry) => `${test.name} / ${entry.name}: ${entry.error}`)).toEqual([]);
      expect(executed.status, test.name).toBe('passed');
    }
  });

  it('waitForResponse names the pattern and the status or JSON value expected and received', () => {
    const status = failure(failing.status.id);
    expect(status.errorMessage).toMatch(
      /^Step "Created" \(waitForResponse \*\*\/api\/items\) failed\nstatus of the response to http:\/\/127\.0\.0\.1:\d+\/api\/items \(matching \*\*\/api\/items\)\n/,
    );
    expect([status.expected, status.received]).toEqual(['201', '200']);
    const jsonPath = failure(failing.jsonPath.id);
    expect(jsonPath.errorMessage).toMatch(
      /\nJSON at \$\.items\[0\]\.name of the response to .*\/api\/items \(matching/,
    );
    expect([jsonPath.expected, jsonPath.received]).toEqual(['"Banana"', '"Apple"']);
  });

  it('waitForResponse lists the last URLs seen when nothing matched, and matches a response once', () => {
    const none = failure(failing.none.id);
    expect(none.errorMessage).toBe(
      `Step "Orders" (waitForResponse **/api/orders) failed\nno response matching **/api/orders within 500 ms; last URLs seen: ${site.url}/items, ${site.url}/api/items`,
    );
    // The page's own GET of /api/items is not the POST the step waits for.
    expect(failure(failing.otherMethod.id).errorMessage).toContain(
      'no response matching POST **/api/items within 500 ms',
    );
    const consumed = failure(failing.consumed.id);
    expect(consumed.failedStep?.name).toBe('A second');
    expect(consumed.errorMessage).toContain('no response matching **/api/items* within 500 ms');
  });

  it('totp: a wrong option is named and the secret never shows', () => {
    const bad = failure(failing.badCode.id);
    expect(bad.errorMessage).toBe(
      'Step "Code" (totp → vars.code) failed\ntotp: digits comes from the otpauth:// URI in the secret; leave it out of the step',
    );
    // The server checks the code: one made with another algorithm than the key's is refused.
    const wrong = failure(failing.wrongAlgorithm.id);
    expect(wrong.failedStep?.name).toBe('Welcome');
    expect(wrong.received).toBe('"Invalid code"');
    for (const content of project.files.values()) expect(String(content)).not.toContain(MFA_KEY);
    expect(JSON.stringify(result.tests)).not.toContain(MFA_KEY);
  });

  it('assertAccessible lists the rules broken and where, over the threshold and in scope', () => {
    const page = failure(failing.inaccessible.id);
    expect(page.errorMessage).toBe(
      'Step "Accessible" (assertAccessible page) failed\n3 accessibility violations (serious or worse): image-alt (critical) at #logo; label (critical) at input; color-contrast (serious) at .faint',
    );
    const unknown = failure(failing.unknownRule.id);
    expect(unknown.errorMessage).toMatch(
      /^Step "Skip a typo" \(assertAccessible page\) failed\naxe-core could not check the page: .*colour-contrast/,
    );
    const scoped = failure(failing.scoped.id);
    expect(scoped.errorMessage).toBe(
      'Step "Bad part" (assertAccessible #bad) failed\n2 accessibility violations (serious or worse): image-alt (critical) at #logo; color-contrast (serious) at .faint',
    );
  });

  it('no failure shows generated code, runtime files or server paths', () => {
    const generated =
      /sd\.step\(|sd\.t\(|sd\.tv\(|await (page|mockRoute|waitForResponse|assertAccessible)|stepdeck-(runtime|network|totp|accessibility)|^\s*>?\s*\d+ \|/m;
    for (const test of Object.values(failing)) {
      const executed = byId(test.id);
      // The detail is Playwright's whole text (code excerpt included), paths made relative to the run.
      expect(executed.errorDetail ?? '', test.name).not.toContain(os.tmpdir());
      const texts = [executed.errorMessage, executed.errorLocation, executed.expected, executed.received];
      for (const text of texts) if (text) expect(text, test.name).not.toMatch(generated);
    }
  });

  it('exports the passing tests as a project that runs green with npx playwright test', async () => {
    const exported = compileProject({
      tests: tests(passing),
      config: null,
      secretNames: ['MFA_URI', 'MFA_KEY'],
    });
    const dir = await tempDir('network-export');
    await writeProject(dir, exported);
    const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
    expect(Object.keys(manifest.devDependencies).sort()).toEqual(['@playwright/test', 'axe-core', 'otpauth']);
    expect(manifest.devDependencies.otpauth).toMatch(/^9\.5\./);
    await linkPlaywright(dir);
    const { stdout } = await run('npx', ['playwright', 'test', '--reporter=line'], {
      cwd: dir,
      env: await exportedRunEnv({ ...secrets }),
      timeout: 180_000,
    }).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`npx playwright test failed:\n${error.stdout}\n${error.stderr}`);
    });
    expect(stdout).toMatch(new RegExp(`${Object.keys(passing).length} passed`));
    expect(stdout).not.toMatch(/failed/);
  }, 240_000);
});
