import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import nock from 'nock';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { run } from '../src/main.ts';
import { run as runPost } from '../src/post.ts';
import { commentMarker } from '../src/report/comment.ts';
import { resultsArtifactName, resultsFileName } from '../src/rerun.ts';
import { apiKey, base, projectId, runDetail, uuid } from './fixtures.ts';
import { zipOf } from './zip.ts';

const github = 'http://github.test';
const blobs = 'http://blobs.test';
let dir: string;
let stdout: string[];
const realWrite = process.stdout.write.bind(process.stdout);
const savedEnv = { ...process.env };

function setInputs(inputs: Record<string, string>) {
  for (const [name, value] of Object.entries(inputs)) process.env[`INPUT_${name.toUpperCase()}`] = value;
}

function readKeyValueFile(file: string): Record<string, string> {
  // @actions/core writes `name<<delimiter\nvalue\ndelimiter` blocks.
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const values: Record<string, string> = {};
  const pattern = /^(.+?)<<(.+)\n([\s\S]*?)\n\2$/gm;
  for (const match of text.matchAll(pattern)) values[match[1] as string] = match[3] as string;
  return values;
}

const outputs = () => readKeyValueFile(path.join(dir, 'output'));
const savedState = () => readKeyValueFile(path.join(dir, 'state'));

function pullRequestEvent(fork: boolean) {
  const file = path.join(dir, 'event.json');
  fs.writeFileSync(
    file,
    JSON.stringify({
      pull_request: {
        number: 7,
        head: { repo: { full_name: fork ? 'someone/app' : 'acme/app' } },
        base: { repo: { full_name: 'acme/app' } },
      },
    }),
  );
  Object.assign(process.env, {
    GITHUB_EVENT_NAME: 'pull_request',
    GITHUB_EVENT_PATH: file,
    GITHUB_REPOSITORY: 'acme/app',
  });
}

beforeAll(() => nock.disableNetConnect());
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-action-'));
  for (const name of ['output', 'state', 'summary']) fs.writeFileSync(path.join(dir, name), '');
  for (const key of Object.keys(process.env))
    if (
      key.startsWith('INPUT_') ||
      key.startsWith('GITHUB_') ||
      key.startsWith('STATE_') ||
      key.startsWith('ACTIONS_')
    )
      delete process.env[key];
  Object.assign(process.env, {
    GITHUB_OUTPUT: path.join(dir, 'output'),
    GITHUB_STATE: path.join(dir, 'state'),
    GITHUB_STEP_SUMMARY: path.join(dir, 'summary'),
    GITHUB_API_URL: github,
    GITHUB_WORKFLOW: 'CI',
    GITHUB_JOB: 'e2e',
    RUNNER_TEMP: dir,
  });
  setInputs({
    'api-key': apiKey,
    'base-url': base,
    'project-id': projectId,
    'test-ids': `${uuid(1)},${uuid(2)}`,
    'poll-interval-seconds': '1',
    'github-token': 'ghs_token',
  });
  stdout = [];
  process.stdout.write = ((chunk: string | Uint8Array) => {
    stdout.push(String(chunk));
    return true;
  }) as typeof process.stdout.write;
});
afterEach(() => {
  process.stdout.write = realWrite;
  process.exitCode = 0;
  process.env = { ...savedEnv };
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending).toEqual([]);
});

function serviceRun(
  status: 'completed' | 'failed',
  trigger: Record<string, string[] | Record<string, string | number>> = { testIds: [uuid(1), uuid(2)] },
) {
  const tests =
    status === 'completed'
      ? [{ name: 'login works', status: 'passed' }]
      : [
          { name: 'login works', status: 'passed' },
          {
            name: 'checkout',
            status: 'failed',
            errorMessage: 'Expected "Paid"',
            errorLocation: 'checkout.spec.ts:12:5',
          },
        ];
  return nock(base, { reqheaders: { 'x-api-key': apiKey } })
    .post('/v1/tests/remote-run', trigger)
    .reply(200, { data: { runId: uuid(10), status: 'pending', totalTests: 2, message: 'Started 2 tests' } })
    .get(`/v1/test-runs/${uuid(10)}`)
    .reply(200, runDetail(uuid(10), status, tests))
    .get(`/v1/test-runs/${uuid(10)}/report`)
    .reply(200, '<html>report</html>', { 'content-type': 'text/html' })
    .get(`/v1/test-runs/${uuid(10)}/artifacts`)
    .reply(200, {
      data: [
        { key: 'test-run.log', label: 'Log', type: 'log', url: `${blobs}/log?sig=1` },
        {
          key: 'tests/checkout/trace.zip',
          label: 'Trace',
          type: 'trace',
          url: `${blobs}/trace?sig=2`,
          testName: 'checkout',
        },
      ],
    });
}

describe('action main', () => {
  it('passing run: outputs, summary rows, artifacts kept without the Actions runtime, exit 0', async () => {
    serviceRun('completed');
    nock(blobs).get('/log').query(true).reply(200, 'log lines').get('/trace').query(true).reply(200, 'zip');
    await run();
    expect(process.exitCode ?? 0).toBe(0);
    const out = outputs();
    expect(out).toMatchObject({
      'run-id': uuid(10),
      'run-ids': uuid(10),
      status: 'passed',
      passed: '1',
      failed: '0',
      skipped: '0',
      total: '1',
      'duration-ms': '4000',
      'run-url': `${base}/console/projects/${projectId}/runs/${uuid(10)}`,
    });
    expect(JSON.parse(out.results as string).tests[0].name).toBe('login works');
    expect(fs.readFileSync(out['report-path'] as string, 'utf8')).toContain('report');
    expect(fs.readFileSync(out['junit-path'] as string, 'utf8')).toContain(
      '<testcase classname="stepdeck" name="login works"',
    );
    expect(
      fs.readFileSync(path.join(out['artifacts-path'] as string, uuid(10), 'test-run.log'), 'utf8'),
    ).toBe('log lines');
    expect(out['artifact-id']).toBeUndefined();
    const summary = fs.readFileSync(path.join(dir, 'summary'), 'utf8');
    expect(summary).toContain('| login works | ✅ passed |');
    expect(savedState()).toMatchObject({ 'run-ids': uuid(10), done: 'true' });
    // The key is only ever printed inside the runner's mask command.
    const printed = stdout.join('');
    expect(printed.replace(`::add-mask::${apiKey}`, '')).not.toContain(apiKey);
    expect(`${summary}${fs.readFileSync(path.join(dir, 'output'), 'utf8')}`).not.toContain(apiKey);
  });

  it('failing run: non-zero exit naming the failed test, annotation, failed-only artifacts, PR comment created', async () => {
    serviceRun('failed');
    nock(blobs).get('/trace').query(true).reply(200, 'zip');
    pullRequestEvent(false);
    setInputs({ artifacts: 'failed', 'comment-key': 'chromium' });
    let created = '';
    nock(github)
      .get('/repos/acme/app/issues/7/comments')
      .query(true)
      .reply(200, [{ id: 1, body: 'unrelated' }])
      .post('/repos/acme/app/issues/7/comments', (body: { body: string }) => {
        created = body.body;
        return true;
      })
      .reply(201, { id: 99, html_url: 'https://github.test/c/99' });
    await run();
    expect(process.exitCode).toBe(1);
    const printed = stdout.join('');
    expect(printed).toContain('::error::Stepdeck run failed: checkout');
    expect(printed).toMatch(
      /::error title=Stepdeck%3A checkout failed,file=checkout.spec.ts,line=12,col=5::Expected "Paid"/,
    );
    expect(created.startsWith(commentMarker('chromium'))).toBe(true);
    expect(created.indexOf('checkout')).toBeLessThan(created.indexOf('login works'));
    const out = outputs();
    expect(out).toMatchObject({ status: 'failed', failed: '1', passed: '1', total: '2' });
    const runDir = path.join(out['artifacts-path'] as string, uuid(10));
    expect(fs.existsSync(path.join(runDir, 'tests', 'checkout', 'trace.zip'))).toBe(true);
    expect(fs.existsSync(path.join(runDir, 'test-run.log'))).toBe(false);
  });

  const triageOf = (triage: 'new' | 'known' | 'flaky' | 'quarantined') => ({
    data: {
      runId: uuid(10),
      baseBranch: 'main',
      failures: [
        {
          testId: uuid(901),
          name: 'checkout',
          status: 'failed',
          triage,
          fingerprint: '0123456789abcdef',
          knownSince: null,
          flakeRate: null,
          quarantine:
            triage === 'quarantined'
              ? {
                  testId: uuid(901),
                  reason: 'payment sandbox down',
                  owner: null,
                  expiresAt: null,
                  createdBy: 'ci',
                  createdAt: '2025-01-01T00:00:00.000Z',
                }
              : null,
        },
      ],
      counts: { new: 0, known: 0, flaky: 0, quarantined: 0, [triage]: 1 },
    },
  });

  it('a failure of a quarantined test: exit 0, the test named, new-failures 0; the label and ref sent', async () => {
    serviceRun('failed', {
      testIds: [uuid(1), uuid(2)],
      metadata: { ref: 'feature/pay', baseRef: 'main', pullRequest: 7, label: 'staging' },
    });
    nock(base)
      .get(`/v1/test-runs/${uuid(10)}/triage`)
      .reply(200, triageOf('quarantined'));
    nock(blobs).get('/log').query(true).reply(200, 'l').get('/trace').query(true).reply(200, 'z');
    Object.assign(process.env, {
      GITHUB_HEAD_REF: 'feature/pay',
      GITHUB_BASE_REF: 'main',
      GITHUB_REF: 'refs/pull/7/merge',
    });
    setInputs({ 'pr-comment': 'off', label: 'staging' });
    await run();
    expect(process.exitCode ?? 0).toBe(0);
    expect(stdout.join('')).toContain(
      '::notice::Quarantined, not failing the step: checkout (payment sandbox down)',
    );
    const out = outputs();
    expect(out).toMatchObject({ status: 'failed', failed: '1', 'new-failures': '0' });
    expect(JSON.parse(out.results as string).tests[0]).toMatchObject({
      name: 'checkout',
      triage: 'quarantined',
    });
  });

  it('a new failure still fails the step, counted in new-failures', async () => {
    serviceRun('failed');
    nock(base)
      .get(`/v1/test-runs/${uuid(10)}/triage`)
      .reply(200, triageOf('new'));
    nock(blobs).get('/log').query(true).reply(200, 'l').get('/trace').query(true).reply(200, 'z');
    setInputs({ 'pr-comment': 'off' });
    await run();
    expect(process.exitCode).toBe(1);
    expect(stdout.join('')).toContain('::error::Stepdeck run failed: checkout');
    expect(outputs()).toMatchObject({ status: 'failed', 'new-failures': '1' });
  });

  it('commit-status: pending with the run link, then failure with the counts, on the PR head SHA', async () => {
    // The run carries the commit it tests.
    serviceRun('failed', { testIds: [uuid(1), uuid(2)], metadata: { commitSha: 'b'.repeat(40) } });
    nock(blobs).get('/log').query(true).reply(200, 'l').get('/trace').query(true).reply(200, 'z');
    const file = path.join(dir, 'event.json');
    fs.writeFileSync(file, JSON.stringify({ pull_request: { number: 7, head: { sha: 'a'.repeat(40) } } }));
    Object.assign(process.env, {
      GITHUB_EVENT_NAME: 'pull_request',
      GITHUB_EVENT_PATH: file,
      GITHUB_REPOSITORY: 'acme/app',
      GITHUB_SHA: 'b'.repeat(40),
    });
    setInputs({ 'commit-status': 'true', 'pr-comment': 'off', 'comment-key': 'chromium' });
    const statuses: Array<Record<string, string>> = [];
    nock(github, { reqheaders: { authorization: /ghs_token/ } })
      .post(`/repos/acme/app/statuses/${'a'.repeat(40)}`, (body: Record<string, string>) => {
        statuses.push(body);
        return true;
      })
      .twice()
      .reply(201, {});
    await run();
    expect(process.exitCode).toBe(1);
    const runPage = `${base}/console/projects/${projectId}/runs/${uuid(10)}`;
    expect(statuses).toEqual([
      {
        state: 'pending',
        context: 'stepdeck/chromium',
        description: 'Stepdeck run started',
        target_url: runPage,
      },
      {
        state: 'failure',
        context: 'stepdeck/chromium',
        description: 'failed: 1 failed, 1 passed of 2 in 4.0 s',
        target_url: runPage,
      },
    ]);
  });

  it('commit-status with a read-only token: a warning, the step result unchanged', async () => {
    serviceRun('completed', { testIds: [uuid(1), uuid(2)], metadata: { commitSha: 'c'.repeat(40) } });
    nock(blobs).get('/log').query(true).reply(200, 'l').get('/trace').query(true).reply(200, 'z');
    Object.assign(process.env, { GITHUB_REPOSITORY: 'acme/app', GITHUB_SHA: 'c'.repeat(40) });
    setInputs({ 'commit-status': 'true' });
    nock(github)
      .post(`/repos/acme/app/statuses/${'c'.repeat(40)}`)
      .twice()
      .reply(403, { message: 'Resource not accessible by integration' });
    await run();
    expect(process.exitCode ?? 0).toBe(0);
    expect(stdout.join('')).toContain(
      '::warning::Could not set the commit status (403): the token needs the statuses: write permission',
    );
    expect(outputs()).toMatchObject({ status: 'passed' });
  });

  it('updates the comment carrying its marker, found on a later page', async () => {
    serviceRun('completed');
    nock(blobs).get('/log').query(true).reply(200, 'l').get('/trace').query(true).reply(200, 'z');
    pullRequestEvent(false);
    const marker = commentMarker('CI/e2e');
    let updated = '';
    nock(github)
      .get('/repos/acme/app/issues/7/comments')
      .query({ per_page: '100' })
      .reply(200, [{ id: 1, body: 'first page' }], {
        link: `<${github}/repos/acme/app/issues/7/comments?per_page=100&page=2>; rel="next"`,
      })
      .get('/repos/acme/app/issues/7/comments')
      .query({ per_page: '100', page: '2' })
      .reply(200, [{ id: 42, body: `${marker}\nold results` }])
      .patch('/repos/acme/app/issues/comments/42', (body: { body: string }) => {
        updated = body.body;
        return true;
      })
      .reply(200, { id: 42, html_url: 'https://github.test/c/42' });
    await run();
    expect(process.exitCode ?? 0).toBe(0);
    expect(updated).toContain('| login works | ✅ passed |');
    expect(stdout.join('')).toContain('PR comment updated');
  });

  it('on a fork PR whose token cannot write, warns with the markdown instead of failing', async () => {
    serviceRun('completed');
    nock(blobs).get('/log').query(true).reply(200, 'l').get('/trace').query(true).reply(200, 'z');
    pullRequestEvent(true);
    setInputs({ 'pr-comment': 'new' });
    nock(github)
      .post('/repos/acme/app/issues/7/comments')
      .reply(403, { message: 'Resource not accessible by integration' });
    await run();
    expect(process.exitCode ?? 0).toBe(0);
    expect(stdout.join('')).toMatch(/::warning::Could not comment: the token cannot comment .*fork PR/);
    expect(stdout.join('')).toContain('login works');
  });

  it('skips the job summary cleanly when GITHUB_STEP_SUMMARY is absent', async () => {
    serviceRun('completed');
    nock(blobs).get('/log').query(true).reply(200, 'l').get('/trace').query(true).reply(200, 'z');
    delete process.env.GITHUB_STEP_SUMMARY;
    await run();
    expect(process.exitCode ?? 0).toBe(0);
    expect(stdout.join('')).toContain('No $GITHUB_STEP_SUMMARY: skipping the job summary');
    expect(outputs().status).toBe('passed');
  });

  it('fire-and-forget: outputs the run id and returns at once', async () => {
    setInputs({ wait: 'false' });
    nock(base)
      .post('/v1/tests/remote-run')
      .reply(200, { data: { runId: uuid(10), status: 'pending', totalTests: 2, message: 'ok' } });
    await run();
    expect(outputs()).toEqual({
      'run-id': uuid(10),
      'run-ids': uuid(10),
      'run-url': `${base}/console/projects/${projectId}/runs/${uuid(10)}`,
      status: 'triggered',
    });
    expect(savedState().done).toBe('true');
  });

  it('environment: sends the project environment by name with the trigger', async () => {
    setInputs({ wait: 'false', environment: 'staging' });
    nock(base)
      .post('/v1/tests/remote-run', (body) => body.environment === 'staging')
      .reply(200, { data: { runId: uuid(10), status: 'pending', totalTests: 2, message: 'ok' } });
    await run();
    expect(outputs()['run-id']).toBe(uuid(10));
  });

  it('environment: a name the service does not know fails the step with its message', async () => {
    setInputs({ wait: 'false', environment: 'nowhere' });
    nock(base)
      .post('/v1/tests/remote-run', (body) => body.environment === 'nowhere')
      .reply(400, {
        message: 'environment: the project has no environment named "nowhere"',
        code: 'ENVIRONMENT_UNKNOWN',
      });
    await run();
    expect(process.exitCode).toBe(1);
    expect(stdout.join('')).toContain('the project has no environment named "nowhere"');
  });

  it('fails with the input problem and the service message', async () => {
    setInputs({ wait: 'maybe' });
    await run();
    expect(process.exitCode).toBe(1);
    expect(stdout.join('')).toContain('::error::Input "wait" must be true or false, got "maybe"');
  });
});

describe('action post', () => {
  it('cancels the runs the main step left unfinished', async () => {
    process.env['STATE_run-ids'] = `${uuid(10)},${uuid(11)}`;
    const cancels = nock(base)
      .post(`/v1/test-runs/${uuid(10)}/cancel`)
      .reply(200, { data: { success: true, message: 'Run cancelled' } })
      .post(`/v1/test-runs/${uuid(11)}/cancel`)
      .reply(400, { message: 'Run already completed' });
    await runPost();
    expect(cancels.isDone()).toBe(true);
    expect(stdout.join('')).toContain(`cancelled Stepdeck run ${uuid(10)}`);
    expect(stdout.join('')).toMatch(/::warning::Could not cancel Stepdeck run .*Run already completed/);
  });

  it('does nothing when the wait finished or nothing was triggered', async () => {
    process.env['STATE_run-ids'] = uuid(10);
    process.env.STATE_done = 'true';
    await runPost();
    delete process.env.STATE_done;
    delete process.env['STATE_run-ids'];
    await runPost();
    // disableNetConnect + no interceptors: any request would have failed the step with a warning.
    expect(stdout.join('')).not.toContain('cancel');
  });
});

describe('rerun: failed', () => {
  /** Attempt 1's results artifact as GitHub serves it: a zip holding the results file. */
  async function attemptOneZip(): Promise<Buffer> {
    const results = {
      version: 1,
      attempt: 1,
      commentKey: 'CI/e2e',
      status: 'failed',
      tests: [
        { testId: uuid(2), name: 'checkout', status: 'failed', flaky: false, durationMs: 900, attempt: 1 },
        { testId: uuid(1), name: 'login works', status: 'passed', flaky: false, durationMs: 800, attempt: 1 },
      ],
    };
    return zipOf(resultsFileName, JSON.stringify(results));
  }

  it('attempt 2 triggers only the test that failed in attempt 1 and carries the pass over', async () => {
    Object.assign(process.env, {
      GITHUB_RUN_ATTEMPT: '2',
      GITHUB_RUN_ID: '555',
      GITHUB_REPOSITORY: 'acme/app',
    });
    setInputs({ artifacts: 'none' });
    const zip = await attemptOneZip();
    nock(github, { reqheaders: { authorization: /ghs_token/ } })
      .get('/repos/acme/app/actions/runs/555/artifacts')
      .query(true)
      .reply(200, {
        total_count: 2,
        artifacts: [
          { id: 31, name: 'stepdeck-e2e-0a1b2c3d-1', size_in_bytes: 10, created_at: '2026-11-23T10:00:00Z' },
          {
            id: 32,
            name: resultsArtifactName('CI/e2e', 1),
            size_in_bytes: 10,
            created_at: '2026-11-23T10:00:00Z',
          },
        ],
      })
      .get('/repos/acme/app/actions/artifacts/32/zip')
      .reply(302, '', { location: `${blobs}/results.zip?sig=1` });
    nock(blobs).get('/results.zip').query(true).reply(200, zip, { 'content-type': 'application/zip' });
    // Only the failed test is triggered, through the single-test endpoint.
    nock(base, { reqheaders: { 'x-api-key': apiKey } })
      .post(`/v1/tests/${uuid(2)}/remote-run`)
      .reply(200, { data: { runId: uuid(11), status: 'pending', totalTests: 1, message: 'Started' } })
      .get(`/v1/test-runs/${uuid(11)}`)
      .reply(200, runDetail(uuid(11), 'completed', [{ testId: uuid(2), name: 'checkout', status: 'passed' }]))
      .get(`/v1/test-runs/${uuid(11)}/report`)
      .reply(200, '<html>report</html>', { 'content-type': 'text/html' });

    await run();
    expect(process.exitCode ?? 0).toBe(0);
    expect(outputs()).toMatchObject({
      status: 'passed',
      passed: '2',
      failed: '0',
      total: '2',
      'carried-over': '1',
    });
    const tests = JSON.parse(outputs().results as string).tests;
    expect(tests).toMatchObject([
      { name: 'checkout', status: 'passed' },
      { name: 'login works', status: 'passed', carriedFromAttempt: 1 },
    ]);
    // (The job summary's carried-over lines are checked in rerun.test.ts: @actions/core caches the
    // summary file of the first test of this file.)
    expect(stdout.join('')).toContain('running 1 test(s) that failed or did not finish in attempt 1');
  });

  it('a token without actions: read (403 listing): a warning naming the permission, then every test runs', async () => {
    Object.assign(process.env, {
      GITHUB_RUN_ATTEMPT: '2',
      GITHUB_RUN_ID: '555',
      GITHUB_REPOSITORY: 'acme/app',
    });
    let listings = 0;
    nock(github)
      .get('/repos/acme/app/actions/runs/555/artifacts')
      .query(true)
      // Once: a retry would meet no interceptor and end with another message than the 403's.
      .reply(() => {
        listings += 1;
        return [403, { message: 'Resource not accessible by integration' }];
      });
    serviceRun('completed');
    nock(blobs).get('/log').query(true).reply(200, 'l').get('/trace').query(true).reply(200, 'z');
    await run();
    expect(listings).toBe(1);
    expect(stdout.join('')).toContain(
      `::warning::Attempt 2, rerun: failed: running every test, the github-token cannot list this workflow run's artifacts (403 Resource not accessible by integration): give the job "permissions: actions: read", or set "rerun: all"`,
    );
    expect(outputs()).toMatchObject({ status: 'passed', total: '1', 'carried-over': '0' });
  }, 15_000);

  it('rerun: all runs everything again without looking up earlier attempts', async () => {
    Object.assign(process.env, {
      GITHUB_RUN_ATTEMPT: '2',
      GITHUB_RUN_ID: '555',
      GITHUB_REPOSITORY: 'acme/app',
    });
    setInputs({ rerun: 'all' });
    serviceRun('completed');
    nock(blobs).get('/log').query(true).reply(200, 'l').get('/trace').query(true).reply(200, 'z');
    await run();
    expect(outputs()).toMatchObject({ status: 'passed', total: '1', 'carried-over': '0' });
  });
});

describe('visual changes', () => {
  /** A passed run whose two screenshot steps recorded candidates (no baseline yet). */
  function visualRun() {
    const detail = runDetail(uuid(10), 'completed', [
      { name: 'home', status: 'passed' },
      { name: 'cart', status: 'passed' },
    ]);
    const change = (testId: string, testName: string) => ({
      testId,
      testName,
      stepId: uuid(800),
      status: 'new' as const,
      diffPixels: 0,
      ratio: 0,
    });
    if (detail.data.report)
      detail.data.report.visualChanges = [change(uuid(900), 'home'), change(uuid(901), 'cart')];
    nock(base, { reqheaders: { 'x-api-key': apiKey } })
      .post('/v1/tests/remote-run')
      .reply(200, { data: { runId: uuid(10), status: 'pending', totalTests: 2, message: 'Started 2 tests' } })
      .get(`/v1/test-runs/${uuid(10)}`)
      .reply(200, detail)
      .get(`/v1/test-runs/${uuid(10)}/report`)
      .reply(200, '<html>report</html>', { 'content-type': 'text/html' });
  }
  const reviewPage = `${base}/console/projects/${projectId}/runs/${uuid(10)}/visual`;

  it('counts them in an output and warns with the review page (summary: test/report.test.ts)', async () => {
    setInputs({ artifacts: 'none' });
    visualRun();
    await run();
    expect(process.exitCode ?? 0).toBe(0);
    expect(outputs()).toMatchObject({ status: 'passed', 'visual-changes': '2' });
    expect(stdout.join('')).toContain(
      `::warning::2 visual changes await review (0 changed, 2 new): ${reviewPage}`,
    );
  });

  it('visual-changes: fail fails the step of a passed run while changes await review', async () => {
    setInputs({ artifacts: 'none', 'visual-changes': 'fail' });
    visualRun();
    await run();
    expect(process.exitCode).toBe(1);
    expect(stdout.join('')).toContain(
      `::error::Stepdeck: 2 visual changes await review (0 changed, 2 new): ${reviewPage} (visual-changes: fail)`,
    );
    expect(outputs()).toMatchObject({ status: 'passed', 'visual-changes': '2' });
  });

  it('visual-changes: ignore neither warns nor fails; a run without changes counts 0', async () => {
    setInputs({ artifacts: 'none', 'visual-changes': 'ignore' });
    visualRun();
    await run();
    expect(process.exitCode ?? 0).toBe(0);
    expect(stdout.join('')).not.toContain('::warning::2 visual changes');
    setInputs({ 'visual-changes': 'loud' });
    await run();
    expect(stdout.join('')).toContain('Input "visual-changes" must be one of warn, fail, ignore, got "loud"');
  });
});
