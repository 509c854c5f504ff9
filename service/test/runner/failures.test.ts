import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CompilableTest,
  compileProject,
  type ExecutedTest,
  type ExecutionResult,
  executeProject,
} from '../../src/runner/index.ts';
import { group, removeTempDirs, step, tempDir, uiTest } from './fixtures.ts';

/**
 * Failures in the user's words: for every kind of failure the runner names the step (path and
 * action), says what was expected and received, and keeps generated code, stacks and server
 * paths out of every user-facing field.
 */

const SECRET = 'failure-secret-7b3c9d';
const ids = {
  assertion: 'a1000000-0000-4000-8000-000000000001',
  missing: 'a2000000-0000-4000-8000-000000000002',
  navigation: 'a3000000-0000-4000-8000-000000000003',
  nested: 'a4000000-0000-4000-8000-000000000004',
  flaky: 'a5000000-0000-4000-8000-000000000005',
  api: 'a6000000-0000-4000-8000-000000000006',
  timeout: 'a7000000-0000-4000-8000-000000000007',
};

/** A page that greets "Hello Ada", and an endpoint that fails its first call only. */
async function startApp() {
  let flakyCalls = 0;
  const server = http.createServer((req, res) => {
    if (req.url === '/api/flaky') {
      flakyCalls += 1;
      res.statusCode = flakyCalls === 1 ? 503 : 200;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ call: flakyCalls }));
      return;
    }
    if (req.url === '/api/user') {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ name: 'Ada', roles: ['admin'], token: SECRET }));
      return;
    }
    res.setHeader('content-type', 'text/html');
    res.end(
      `<!doctype html><title>Greeter</title><input id="name"><button id="go" onclick="document.getElementById('out').textContent='Hello '+document.getElementById('name').value">Go</button><p id="out"></p>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Every user-facing text of a result: none may hold a server path or generated code. */
function userFacing(test: ExecutedTest): string[] {
  return [
    test.errorMessage,
    test.errorLocation,
    test.expected,
    test.received,
    test.errorDetail,
    ...(test.failedStep ? [test.failedStep.name, test.failedStep.action, ...test.failedStep.path] : []),
    ...test.steps.flatMap((step) => [step.name, step.action, step.error, ...step.path]),
  ].filter((text): text is string => typeof text === 'string');
}

const GENERATED_CODE =
  /sd\.step\(|sd\.t\(|sd\.tv\(|sd\.response\(|readJsonPath\(|await page\.|\.spec\.ts|stepdeck-[a-z]+\.ts|^\s*>?\s*\d+ \|/m;

describe('failures in the user’s words (real Chromium)', () => {
  let app: Awaited<ReturnType<typeof startApp>>;
  let result: ExecutionResult;
  const byId = (id: string) => {
    const found = result.tests.find((test) => test.testId === id);
    if (!found) throw new Error(`no result for ${id}`);
    return found;
  };

  beforeAll(async () => {
    app = await startApp();
    // Room for a loaded machine: only the steps meant to fail wait out a short timeout.
    const ui = {
      use: { baseURL: app.url, actionTimeout: 20_000, trace: 'off', screenshot: 'off', video: 'off' },
    };
    const quick = { use: { ...ui.use, actionTimeout: 2_000 } };
    const tests: CompilableTest[] = [
      uiTest(
        ids.assertion,
        'Wrong greeting',
        [
          step('Open', { name: 'goto', url: '/' }),
          step('Type name', { name: 'fill', selector: '#name', value: 'Ada' }),
          step('Greet', { name: 'click', selector: '#go' }),
          step('', { name: 'assertText', selector: '#out', value: 'Bye Ada' }),
          step('Never', { name: 'click', selector: '#go' }),
          step('Skipped', { name: 'click', selector: '#go' }, { condition: { type: 'skip' } }),
        ],
        { config: ui },
      ),
      uiTest(
        ids.missing,
        'Missing button',
        [step('Open', { name: 'goto', url: '/' }), step('Press buy', { name: 'click', selector: '#buy' })],
        { config: quick },
      ),
      uiTest(
        ids.navigation,
        'Unreachable site',
        [step('Open', { name: 'goto', url: 'http://127.0.0.1:1/' })],
        {
          config: ui,
        },
      ),
      uiTest(
        ids.nested,
        'Checkout',
        [
          step('Open', { name: 'goto', url: '/' }),
          group('Pay', [
            step('Type card', { name: 'fill', selector: '#name', value: '{{secrets.CARD}}' }),
            step('', { name: 'assertValue', selector: '#name', value: 'wrong card' }),
            step('Confirm', { name: 'click', selector: '#go' }),
          ]),
          step('Cleanup', { name: 'goto', url: '/' }, { condition: { type: 'alwaysRun' } }),
        ],
        { config: ui },
      ),
      {
        id: ids.flaky,
        name: 'Flaky API',
        type: 'api',
        config: { use: { baseURL: app.url }, retries: 1 },
        vars: null,
        parameters: null,
        files: [],
        steps: [
          step('Call', { name: 'request', method: 'GET', url: '/api/flaky' }),
          step('Up', { name: 'assertStatus', value: 200 }),
        ],
      },
      {
        id: ids.api,
        name: 'User API',
        type: 'api',
        config: { use: { baseURL: app.url } },
        vars: null,
        parameters: null,
        files: [],
        steps: [
          step('Fetch user', { name: 'request', method: 'GET', url: '/api/user' }),
          step('Created', { name: 'assertStatus', value: 201 }),
          step(
            'Roles',
            { name: 'assertJson', path: '$.roles', value: ['admin', 'billing'] },
            {
              condition: { type: 'alwaysRun' },
            },
          ),
          step(
            'Token',
            { name: 'assertJson', path: '$.token', value: 'other' },
            {
              condition: { type: 'alwaysRun' },
            },
          ),
        ],
      },
      uiTest(
        ids.timeout,
        'Slow test',
        [
          step('Open', { name: 'goto', url: '/' }),
          step('Pause', { name: 'wait', ms: 120_000 }),
          step('After', { name: 'click', selector: '#go' }),
        ],
        { config: { ...ui, timeout: 30_000 } },
      ),
    ];
    result = await executeProject({
      dir: await tempDir('failures'),
      project: compileProject({ tests, config: null, secretNames: ['CARD'] }),
      env: { STEPDECK_SECRET_CARD: SECRET },
      signal: new AbortController().signal,
    });
  }, 420_000);
  afterAll(async () => {
    await app?.close();
    await removeTempDirs();
  });

  it('names the failing assertion step with its expectation and what was received', () => {
    const test = byId(ids.assertion);
    expect(test.status).toBe('failed');
    expect(test.failedStep).toEqual({
      stepId: expect.any(String),
      name: 'assertText #out',
      action: 'assertText #out',
      path: ['assertText #out'],
    });
    expect(test.errorLocation).toBe('assertText #out');
    expect(test.expected).toBe('"Bye Ada"');
    expect(test.received).toBe('"Hello Ada"');
    expect(test.errorMessage?.split('\n')[0]).toBe('Step "assertText #out" (assertText #out) failed');
    expect(test.errorMessage).toMatch(/Expected substring: "Bye Ada"/);
    expect(test.errorMessage).toMatch(/Received string: +"Hello Ada"/);
    expect(test.steps.map((step) => [step.name, step.status])).toEqual([
      ['Open', 'passed'],
      ['Type name', 'passed'],
      ['Greet', 'passed'],
      ['assertText #out', 'failed'],
      ['Never', 'notRun'],
      ['Skipped', 'skipped'],
    ]);
    expect(test.steps[3]?.error).toMatch(/Received string/);
    expect(test.steps[0]?.duration).toBeGreaterThan(0);
    // The raw text stays available, without server paths.
    expect(test.errorDetail).toMatch(/toContainText/);
  });

  it('names the step that timed out waiting for a missing selector, and that nothing like it is there', () => {
    const test = byId(ids.missing);
    expect(test.errorLocation).toBe('Press buy');
    expect(test.failedStep?.action).toBe('click #buy');
    // The locator matched nothing: the runner looked for the closest elements (none here).
    expect(test.errorMessage).toBe(
      `Step "Press buy" (click #buy) failed\nno element for locator('#buy'); nothing similar on the page now\nlocator.click: Timeout 2000ms exceeded.\nwaiting for locator('#buy')`,
    );
    expect(test.expected).toBeNull();
  });

  it('names the navigation that failed and why', () => {
    const test = byId(ids.navigation);
    expect(test.errorLocation).toBe('Open');
    expect(test.failedStep?.action).toBe('goto http://127.0.0.1:1/');
    expect(test.errorMessage).toMatch(
      /^Step "Open" \(goto http:\/\/127\.0\.0\.1:1\/\) failed\npage\.goto: net::ERR_/,
    );
  });

  it('names a failure inside a group by its path; later steps not run, alwaysRun ran; secrets redacted', () => {
    const test = byId(ids.nested);
    expect(test.errorLocation).toBe('Pay › assertValue #name');
    expect(test.failedStep?.path).toEqual(['Pay', 'assertValue #name']);
    expect(test.expected).toBe('"wrong card"');
    expect(test.received).toBe('"***"');
    expect(test.steps.map((step) => [step.path.join(' › '), step.depth, step.status])).toEqual([
      ['Open', 0, 'passed'],
      ['Pay', 0, 'failed'],
      ['Pay › Type card', 1, 'passed'],
      ['Pay › assertValue #name', 1, 'failed'],
      ['Pay › Confirm', 1, 'notRun'],
      ['Cleanup', 0, 'passed'],
    ]);
    for (const text of userFacing(test)) expect(text).not.toContain(SECRET);
  });

  it('reports a failure on the first attempt then a pass on the retry as flaky, with the failed attempt named', () => {
    const test = byId(ids.flaky);
    expect(test.status).toBe('flaky');
    expect(test.flaky).toBe(true);
    expect(test.attempts).toBe(2);
    expect(test.errorLocation).toBe('Up');
    expect(test.expected).toBe('200');
    expect(test.received).toBe('503');
    // The step tree is the deciding (passing) attempt's.
    expect(test.steps.map((step) => step.status)).toEqual(['passed', 'passed']);
    expect(result.stats.passed).toBeGreaterThanOrEqual(1);
  });

  it('API assertions: expected vs received status and JSON', () => {
    const test = byId(ids.api);
    expect(test.errorLocation).toBe('Created');
    expect(test.failedStep?.action).toBe('assertStatus 201');
    expect(test.expected).toBe('201');
    expect(test.received).toBe('200');
    expect(test.errorMessage).toBe(
      'Step "Created" (assertStatus 201) failed\nresponse status should be 201\nExpected: 201\nReceived: 200',
    );
    const roles = test.steps.find((step) => step.name === 'Roles');
    expect(roles?.status).toBe('failed');
    expect(roles?.action).toBe('assertJson $.roles');
    expect(roles?.error).toMatch(/JSON at \$\.roles/);
    expect(roles?.error).toMatch(/billing/);
    // The response held the secret value: redacted wherever it shows.
    const token = test.steps.find((step) => step.name === 'Token');
    expect(token?.status).toBe('failed');
    expect(token?.error).toContain('***');
    for (const text of userFacing(test)) expect(text).not.toContain(SECRET);
  });

  it('a test timeout names the step that was running', () => {
    const test = byId(ids.timeout);
    expect(test.status).toBe('timedOut');
    expect(test.errorLocation).toBe('Pause');
    expect(test.errorMessage).toBe('Step "Pause" (wait 120000 ms) failed\nTest timeout of 30000ms exceeded.');
    expect(test.steps.map((step) => step.status)).toEqual(['passed', 'failed', 'notRun']);
  });

  it('no server path, no generated code and no ANSI in any user-facing field', () => {
    for (const test of result.tests) {
      for (const text of userFacing(test)) {
        expect(text, test.name).not.toMatch(/\/tmp\//);
        expect(text, test.name).not.toContain('\u001b');
      }
      const short = userFacing(test).filter((text) => text !== test.errorDetail);
      for (const text of short) expect(text, test.name).not.toMatch(GENERATED_CODE);
    }
  });
});
