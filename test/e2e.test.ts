import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cleanupRunners,
  ensureDist,
  runAction,
  runtimeToken,
  type Service,
  startAction,
  startArtifactService,
  startAzurite,
  startGitHub,
  startService,
  startSite,
  waitFor,
} from './e2e/harness.ts';

/**
 * The bundled action (`node dist/index.js`) run as a runner would, against the real service
 * (child process, SQLite, real Chromium), a page on loopback, a GitHub API stand-in and an
 * Actions artifact service stand-in whose uploads go to azurite.
 */
describe('action end to end (dist/index.js, real service)', () => {
  let service: Service;
  let site: Awaited<ReturnType<typeof startSite>>;
  let github: Awaited<ReturnType<typeof startGitHub>>;
  let azurite: Awaited<ReturnType<typeof startAzurite>>;
  let artifactService: Awaited<ReturnType<typeof startArtifactService>>;
  let eventDir: string;
  const tests = { passOne: '', passTwo: '', failing: '', flaky: '' };
  const token = runtimeToken('0b8e4d3a-1c2f-4a5b-9d6e-7f8091a2b3c4', '5d6e7f80-91a2-4b3c-8d4e-5f60718293a4');

  beforeAll(async () => {
    ensureDist();
    [service, site, github, azurite] = await Promise.all([
      startService(),
      startSite(),
      startGitHub({ owner: 'acme', repo: 'shop', pr: 7, seedComments: 120 }),
      startAzurite(),
    ]);
    artifactService = await startArtifactService(azurite, token);
    // The workflow run's artifacts, as GitHub lists and serves them: the uploads to azurite.
    github.useArtifacts(artifactService.source);
    const page = (name: string, expected: string, url = '/') => ({
      name,
      steps: [
        { name: 'open', action: { name: 'goto', url } },
        { name: 'title', action: { name: 'assertText', selector: '#title', value: expected } },
      ],
    });
    tests.passOne = await service.createTest(page('e2e pass one', 'Hello Stepdeck'));
    tests.passTwo = await service.createTest(page('e2e pass two', 'Hello Stepdeck'));
    tests.failing = await service.createTest(page('e2e fails on purpose', 'Goodbye Stepdeck'));
    tests.flaky = await service.createTest(page('e2e flaky', 'Hello Stepdeck', '/flaky'));
    eventDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-e2e-event-'));
    fs.writeFileSync(
      path.join(eventDir, 'event.json'),
      JSON.stringify({
        action: 'synchronize',
        number: 7,
        pull_request: {
          number: 7,
          head: { repo: { full_name: 'acme/shop' } },
          base: { repo: { full_name: 'acme/shop' } },
        },
      }),
    );
  }, 300_000);

  afterAll(async () => {
    cleanupRunners();
    if (eventDir) fs.rmSync(eventDir, { recursive: true, force: true });
    await Promise.all([service?.stop(), site?.close(), github?.close(), artifactService?.close()]);
    await azurite?.stop();
  });

  const inputs = (testIds: string) => ({
    'api-key': service.apiKey,
    'base-url': service.url,
    'project-id': service.projectId,
    'test-ids': testIds,
    'target-url': site.url,
    'poll-interval-seconds': '1',
    'timeout-minutes': '10',
    'github-token': 'gh-test-token',
    // Defaults as action.yml declares them (the runner passes them as INPUT_* too).
    wait: 'true',
    artifacts: 'all',
    summary: 'true',
    'pr-comment': 'update',
    annotations: 'true',
  });
  const github_env = () => ({
    GITHUB_EVENT_NAME: 'pull_request',
    GITHUB_EVENT_PATH: path.join(eventDir, 'event.json'),
    GITHUB_REPOSITORY: 'acme/shop',
    GITHUB_API_URL: github.url,
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_WORKFLOW: 'CI',
    GITHUB_JOB: 'e2e',
    GITHUB_RUN_ID: '9001',
    GITHUB_RUN_ATTEMPT: '1',
  });
  const ownComments = () => github.comments.filter((comment) => comment.body.includes('stepdeck-comment'));
  const callsOf = (method: string) => github.calls.filter((call) => call.method === method);

  it('passing run: exit 0, outputs, summary, one PR comment, artifact uploaded to azurite', async () => {
    const result = await runAction(inputs(tests.passOne), {
      ...github_env(),
      ACTIONS_RUNTIME_TOKEN: token,
      ACTIONS_RESULTS_URL: `${artifactService.url}/`,
    });
    expect(result.code, result.stdout).toBe(0);
    const { outputs } = result;
    expect(outputs).toMatchObject({
      status: 'passed',
      passed: '1',
      failed: '0',
      skipped: '0',
      total: '1',
      'artifact-id': '1',
    });
    expect(outputs['run-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(outputs['run-ids']).toBe(outputs['run-id']);
    expect(outputs['run-url']).toBe(
      `${service.url}/console/projects/${service.projectId}/runs/${outputs['run-id']}`,
    );
    expect(Number(outputs['duration-ms'])).toBeGreaterThan(0);
    expect(JSON.parse(outputs.results ?? '{}')).toMatchObject({
      status: 'passed',
      stats: { passed: 1, failed: 0, total: 1 },
      tests: [{ name: 'e2e pass one', status: 'passed', testId: tests.passOne }],
    });
    // The files the outputs point at exist.
    expect(fs.readFileSync(outputs['report-path'] ?? '', 'utf8')).toContain('e2e pass one');
    expect(fs.readFileSync(outputs['junit-path'] ?? '', 'utf8')).toContain('e2e pass one');

    // The service agrees.
    const run = await service.api('GET', `/v1/test-runs/${outputs['run-id']}`);
    expect(run.json.data).toMatchObject({ status: 'completed', stats: { passed: 1, total: 1 } });

    // Job summary: status line and one row per test.
    expect(result.summary).toContain('Stepdeck CI/e2e: passed');
    expect(result.summary).toMatch(/\| e2e pass one \| ✅ passed \|/);
    expect(result.summary).toContain(outputs['run-url']);

    // PR comment: every page listed (120 other comments), then one created.
    const listed = callsOf('GET').filter((call) =>
      call.path.startsWith('/repos/acme/shop/issues/7/comments'),
    );
    expect(listed.map((call) => new URL(call.path, github.url).searchParams.get('page') ?? '1')).toEqual([
      '1',
      '2',
    ]);
    expect(callsOf('POST')).toHaveLength(1);
    expect(callsOf('PATCH')).toHaveLength(0);
    expect(ownComments()).toHaveLength(1);
    expect(ownComments()[0]?.body).toContain('<!-- stepdeck-comment: CI/e2e -->');
    expect(ownComments()[0]?.body).toMatch(/\| e2e pass one \| ✅ passed \|/);

    // Workflow artifacts, each created, uploaded to azurite as a zip and finalized: the run's
    // files, and the small results file that a re-run of failed jobs reads (rerun.ts).
    expect(artifactService.calls.map((call) => call.path.split('/').pop())).toEqual([
      'CreateArtifact',
      'FinalizeArtifact',
      'CreateArtifact',
      'FinalizeArtifact',
    ]);
    expect(artifactService.artifacts.map((uploaded) => uploaded.name)).toContainEqual(
      expect.stringMatching(/^stepdeck-results-CI_e2e-\d+$/),
    );
    const artifact = artifactService.artifacts.find((uploaded) => uploaded.name.startsWith('stepdeck-e2e-'));
    expect(artifact?.name).toBe(`stepdeck-e2e-${outputs['run-id']?.slice(0, 8)}-1`);
    expect(artifact?.hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    const zip = await artifactService.download(artifact?.blob ?? '');
    expect(zip.subarray(0, 4).toString('binary')).toBe('PK\u0003\u0004');
    expect(zip.length).toBe(artifact?.size);
    expect(zip.includes(Buffer.from('report.html'))).toBe(true);
    expect(zip.includes(Buffer.from('test-results.json'))).toBe(true);

    // The key is masked first (the runner hides it from then on) and never shows otherwise.
    expect(result.stdout.split('\n')[0]).toBe(`::add-mask::${service.apiKey}`);
    const log = result.stdout.split('\n').slice(1).join('\n');
    for (const text of [log, result.summary, ...github.comments.map((comment) => comment.body)])
      expect(text).not.toContain(service.apiKey);
  }, 240_000);

  it('second passing run: the same PR comment is updated, not a second one', async () => {
    const result = await runAction(inputs(tests.passTwo), github_env());
    expect(result.code, result.stdout).toBe(0);
    expect(result.outputs).toMatchObject({ status: 'passed', passed: '1', total: '1' });
    // Without the Actions runtime the files stay on disk and the step says where.
    expect(result.outputs['artifact-id']).toBeUndefined();
    expect(fs.existsSync(result.outputs['artifacts-path'] ?? '')).toBe(true);
    expect(result.stdout).toContain(`Artifacts kept in ${result.outputs['artifacts-path']}`);
    expect(callsOf('POST')).toHaveLength(1);
    expect(callsOf('PATCH')).toHaveLength(1);
    expect(ownComments()).toHaveLength(1);
    expect(ownComments()[0]?.body).toMatch(/\| e2e pass two \| ✅ passed \|/);
    expect(ownComments()[0]?.body).not.toContain('e2e pass one');
    // No Actions runtime this time: nothing new is uploaded.
    expect(artifactService.artifacts).toHaveLength(2);
  }, 240_000);

  it('failing run: non-zero exit naming the failed test in the log, annotation and summary', async () => {
    // Step debug logging on, as anyone re-running the job can switch it: still no signed URL.
    const result = await runAction(inputs(tests.failing), { ...github_env(), RUNNER_DEBUG: '1' });
    expect(result.stdout).toMatch(/::debug::Downloaded artifact \S+ \(\d+ bytes\)/);
    for (const text of [result.stdout, result.summary, ...Object.values(result.outputs)])
      expect(text).not.toMatch(/signature=|expires=/);
    expect(result.code, result.stdout).not.toBe(0);
    expect(result.outputs).toMatchObject({ status: 'failed', passed: '0', failed: '1', total: '1' });
    expect(result.stdout).toMatch(/::error::Stepdeck run failed: e2e fails on purpose/);
    // One error annotation for the failed test, with the assertion's message.
    // Titled test › failing step when the service reports the step, else as before.
    expect(result.stdout).toMatch(
      /::error [^\n]*title=(Stepdeck%3A e2e fails on purpose failed|e2e fails on purpose › title)[^\n]*::/,
    );
    expect(result.summary).toContain('Stepdeck CI/e2e: failed');
    // Row: test | status | failing step | reason (the expectation) | duration | run link.
    expect(result.summary).toMatch(
      // Classed against the history by the real service: this failure is new.
      /\| e2e fails on purpose \| ❌ failed · 🆕 new \| [^|]* \| [^|]*Goodbye Stepdeck[^|]* \| [^|]+ \| \[run\]\(/,
    );
    expect(result.summary).toMatch(/<details>\n<summary>❌ e2e fails on purpose/);
    expect(result.summary).not.toContain('&lt;br>');
    const run = await service.api('GET', `/v1/test-runs/${result.outputs['run-id']}`);
    expect(run.json.data.status).toBe('failed');
    // Still one comment, now showing the failure.
    expect(ownComments()).toHaveLength(1);
    expect(ownComments()[0]?.body).toContain('e2e fails on purpose');
  }, 240_000);

  it('cancelled job: the post step cancels the remote run the main step was waiting for', async () => {
    const slow = await service.createTest({
      name: 'e2e slow',
      steps: [
        { name: 'open', action: { name: 'goto', url: '/' } },
        { name: 'wait', action: { name: 'wait', ms: 60_000 } },
      ],
    });
    const slowInputs = { ...inputs(slow), config: JSON.stringify({ timeout: 120_000 }), 'pr-comment': 'off' };
    const main = startAction(slowInputs, github_env());
    // The runner cancels the job once the run is under way: SIGINT to the main step...
    const state = await waitFor(
      'the main step to save the run id',
      async () => (main.savedState()['STATE_run-ids'] ? main.savedState() : undefined),
      60_000,
    );
    const runId = state['STATE_run-ids'] as string;
    expect(state['STATE_is-post']).toBe('true');
    main.child.kill('SIGINT');
    await main.done;
    expect((await service.api('GET', `/v1/test-runs/${runId}`)).json.data.status).not.toBe('cancelled');
    // ...then the post step (post-if: cancelled()) with the saved state.
    const post = await runAction(slowInputs, { ...github_env(), ...state });
    expect(post.code, post.stdout).toBe(0);
    expect(post.stdout).toContain(`Job cancelled: cancelled Stepdeck run ${runId}`);
    const run = await service.api('GET', `/v1/test-runs/${runId}`);
    expect(run.json.data.status).toBe('cancelled');
    expect(run.json.data.cancelledAt).toEqual(expect.any(String));
  }, 240_000);

  it('re-run of failed jobs: attempt 1 fails one test of three, attempt 2 runs exactly that one', async () => {
    const runtime = { ACTIONS_RUNTIME_TOKEN: token, ACTIONS_RESULTS_URL: `${artifactService.url}/` };
    const rerunInputs = {
      ...inputs([tests.passOne, tests.failing, tests.passTwo].join(',')),
      'comment-key': 'rerun',
      'pr-comment': 'off',
      artifacts: 'none',
      'commit-status': 'true',
    };
    const sha = 'e'.repeat(40);
    const env = { ...github_env(), ...runtime, GITHUB_RUN_ID: '9100', GITHUB_SHA: sha };

    const first = await runAction(rerunInputs, env);
    expect(first.code, first.stdout).not.toBe(0);
    expect(first.outputs).toMatchObject({ status: 'failed', passed: '2', failed: '1', total: '3' });
    expect(first.outputs['carried-over']).toBe('0');
    // Attempt 1 leaves its results for the next attempt.
    expect(artifactService.artifacts.map((artifact) => artifact.name)).toContain('stepdeck-results-rerun-1');
    // Commit status: pending with the run link when triggered, then failure with the counts.
    const runUrl = first.outputs['run-url'];
    expect(github.statuses).toEqual([
      {
        sha,
        state: 'pending',
        context: 'stepdeck/rerun',
        description: 'Stepdeck run started',
        target_url: runUrl,
      },
      {
        sha,
        state: 'failure',
        context: 'stepdeck/rerun',
        description: expect.stringMatching(/^failed: 1 failed, 2 passed of 3 in /),
        target_url: runUrl,
      },
    ]);

    const second = await runAction(rerunInputs, { ...env, GITHUB_RUN_ATTEMPT: '2' });
    expect(second.stdout).toContain('running 1 test(s) that failed or did not finish in attempt 1');
    expect(second.code, second.stdout).not.toBe(0);
    expect(second.outputs).toMatchObject({
      status: 'failed',
      passed: '2',
      failed: '1',
      total: '3',
      'carried-over': '2',
    });
    expect(second.outputs['run-id']).not.toBe(first.outputs['run-id']);
    // The service ran exactly the failed test.
    const run = await service.api('GET', `/v1/test-runs/${second.outputs['run-id']}`);
    expect(run.json.data.stats).toMatchObject({ total: 1, failed: 1 });
    expect(
      run.json.data.report.runTypeInfo.testResults.map((test: { testId: string }) => test.testId),
    ).toEqual([tests.failing]);
    expect(second.summary).toMatch(/\| e2e pass one \| ✅ passed \(attempt 1, carried over\) \|/);
    expect(second.summary).toMatch(/\| e2e pass two \| ✅ passed \(attempt 1, carried over\) \|/);
    expect(second.summary).toContain('**2** carried over from an earlier attempt');
    const results = JSON.parse(second.outputs.results ?? '{}');
    expect(
      results.tests.map((test: { name: string; carriedFromAttempt?: number }) => [
        test.name,
        test.carriedFromAttempt,
      ]),
    ).toEqual([
      ['e2e fails on purpose', undefined],
      ['e2e pass one', 1],
      ['e2e pass two', 1],
    ]);
    expect(artifactService.artifacts.map((artifact) => artifact.name)).toContain('stepdeck-results-rerun-2');
  }, 480_000);

  it('flaky test (fails once, passes on the retry): passed, named as flaky in the summary and outputs', async () => {
    const result = await runAction(
      {
        ...inputs(tests.flaky),
        config: JSON.stringify({ retries: 1 }),
        'comment-key': 'flaky',
        'pr-comment': 'off',
        artifacts: 'none',
      },
      github_env(),
    );
    expect(result.code, result.stdout).toBe(0);
    expect(result.outputs).toMatchObject({
      status: 'passed',
      passed: '1',
      failed: '0',
      flaky: '1',
      total: '1',
    });
    expect(JSON.parse(result.outputs.results ?? '{}')).toMatchObject({
      stats: { passed: 1, failed: 0, flaky: 1 },
      tests: [{ name: 'e2e flaky', testId: tests.flaky, flaky: true }],
    });
    expect(result.summary).toContain('**1** flaky');
    expect(result.summary).toMatch(/\| e2e flaky \| ⚠️ flaky \|/);
  }, 480_000);
});
