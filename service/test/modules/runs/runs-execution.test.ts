import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunFinished } from '../../../src/context.ts';
import { consoleCall, createTestApp, type TestApp } from '../../helper.ts';
import { apiTest, createTag, createTest, type Site, setCap, startSite, waitForStatus } from './helpers.ts';
import { groupMembers, runGroupOf } from './service-process.ts';

/** Real runs on the embedded runner: real Playwright, real Chromium, pages on loopback. */
describe('run execution (embedded runner, real Chromium)', () => {
  let t: TestApp;
  let site: Site;
  let offsetMs = 0;
  const clock = { now: () => new Date(Date.now() + offsetMs) };
  const finished: RunFinished[] = [];
  const secretValue = 'sekrit-value-9f3a';

  beforeAll(async () => {
    site = await startSite();
    t = await createTestApp({ background: true, clock, env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    t.ctx.events.on('run.finished', (event) => finished.push(event));
    const response = await consoleCall(t.app, await t.consoleCookie(), {
      method: 'POST',
      url: `/console/v1/projects/${t.bootstrap.projectId}/secrets`,
      payload: { name: 'TOKEN', value: secretValue },
    });
    expect(response.statusCode).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
    await site?.close();
  });

  const trigger = (testId: string, payload?: Record<string, unknown>) =>
    t.api({ method: 'POST', url: `/v1/tests/${testId}/remote-run`, ...(payload ? { payload } : {}) });
  const bulk = (payload: Record<string, unknown>) =>
    t.api({ method: 'POST', url: '/v1/tests/remote-run', payload });
  const eventsOf = (runId: string) => finished.filter((event) => event.runId === runId);

  it('runs an API test without a browser and completes it', async () => {
    const ok = await createTest(t, apiTest('api ok', `${site.url}/status?code=204`, 204));
    const response = await trigger(ok);
    expect(response.statusCode).toBe(200);
    const runId = response.json().data.runId;
    const run = await waitForStatus(t, runId, ['completed', 'failed']);
    expect(run.status).toBe('completed');
    expect(run.stats).toEqual({ passed: 1, failed: 0, skipped: 0, total: 1 });
    expect(run.startedAt).toEqual(expect.any(String));
    expect(run.completedAt).toEqual(expect.any(String));
    expect(run.duration).toEqual(expect.any(Number));
    expect(site.hits.get('/status?code=204')).toBe(1);
    expect(eventsOf(runId)).toHaveLength(1);
    expect(eventsOf(runId)[0]).toMatchObject({
      status: 'completed',
      trigger: { type: 'apiKey', name: 'bootstrap' },
      target: { type: 'test', id: ok, name: 'api ok' },
      stats: { passed: 1, total: 1 },
    });
  });

  const uiPass = (extra: Record<string, unknown> = {}) => ({
    name: 'ui pass',
    steps: [
      { name: 'open', action: { name: 'goto', url: '/page' } },
      { name: 'title', action: { name: 'assertText', selector: '#title', value: 'Hello runs' } },
      { name: 'viewport', action: { name: 'assertText', selector: '#size', value: '800x600' } },
      { name: 'secret', action: { name: 'fill', selector: '#field', value: '{{secrets.TOKEN}}' } },
      {
        name: 'secret kept',
        action: { name: 'assertValue', selector: '#field', value: '{{secrets.TOKEN}}' },
      },
    ],
    ...extra,
  });
  const uiFail = (extra: Record<string, unknown> = {}) => ({
    name: 'ui fail',
    steps: [
      { name: 'open', action: { name: 'goto', url: '/page' } },
      { name: 'wrong', action: { name: 'assertText', selector: '#title', value: 'Something else' } },
    ],
    ...extra,
  });
  const runConfig = () => ({
    use: { baseURL: site.url, actionTimeout: 1500 },
    viewport: { width: 800, height: 600 },
  });

  let leafRunId: string;
  let dirRunId: string;
  let uiPassId: string;

  it('passes a UI leaf with config mapping (baseURL, viewport, repeatEach) and secrets from the environment', async () => {
    uiPassId = await createTest(t, uiPass());
    const response = await trigger(uiPassId, { config: { ...runConfig(), repeatEach: 2 } });
    expect(response.statusCode).toBe(200);
    leafRunId = response.json().data.runId;
    const run = await waitForStatus(t, leafRunId, ['completed', 'failed']);
    expect(run.status).toBe('completed');
    expect(run.stats).toEqual({ passed: 2, failed: 0, skipped: 0, total: 2 });
    const report = run.report as { runTypeInfo: { testResults: Array<{ status: string }> } };
    // repeatEach 2: one result per repetition.
    expect(report.runTypeInfo.testResults.map((test) => test.status)).toEqual(['passed', 'passed']);
    const json = await t.ctx.blobs.get(`runs/${leafRunId}/test-results.json`);
    expect(JSON.parse(String(json)).stats.expected).toBe(2);
  });

  it("reports the Web Vitals a test's steps measured with its result", async () => {
    const testId = await createTest(t, {
      name: 'measures its page',
      steps: [
        { name: 'open', action: { name: 'goto', url: '/page' } },
        { name: 'measure', action: { name: 'measureVitals', label: 'Home' } },
      ],
    });
    const response = await trigger(testId, { config: runConfig() });
    expect(response.statusCode).toBe(200);
    const run = await waitForStatus(t, response.json().data.runId, ['completed', 'failed']);
    expect(run.status).toBe('completed');
    const [result] = (run.report as { runTypeInfo: { testResults: Array<Record<string, unknown>> } })
      .runTypeInfo.testResults;
    expect(result?.vitals).toEqual([
      expect.objectContaining({ label: 'Home', url: `${site.url}/page`, fcpMs: expect.any(Number) }),
    ]);
  });

  it('fails a directory run with per-test results, retries, errors and artifacts', async () => {
    offsetMs += 11_000;
    const dir = await createTest(t, { name: 'ui suite', directory: true });
    await createTest(t, uiPass({ name: 'ui pass in dir', parentTestId: dir }));
    await createTest(t, uiFail({ parentTestId: dir }));
    const response = await trigger(dir, { config: { ...runConfig(), retries: 1 } });
    expect(response.statusCode).toBe(200);
    expect(response.json().data.totalTests).toBe(2);
    dirRunId = response.json().data.runId;
    const run = await waitForStatus(t, dirRunId, ['completed', 'failed']);
    expect(run.status).toBe('failed');
    expect(run.stats).toEqual({ passed: 1, failed: 1, skipped: 0, total: 2 });
    const report = run.report as {
      runId: string;
      runName: string;
      runTypeInfo: {
        type: string;
        testResults: Array<{
          name: string;
          status: string;
          errorMessage: string | null;
          errorLocation: string | null;
          attempts: number;
        }>;
      };
    };
    expect(report).toMatchObject({
      runId: dirRunId,
      runName: 'ui suite',
      runTypeInfo: { type: 'directory' },
    });
    const failedTest = report.runTypeInfo.testResults.find((test) => test.name === 'ui fail');
    expect(failedTest?.status).toBe('failed');
    expect(failedTest?.attempts).toBe(2);
    expect(failedTest?.errorMessage).toMatch(/Something else/);
    expect(failedTest?.errorLocation).toEqual(expect.any(String));
    const event = eventsOf(dirRunId);
    expect(event).toHaveLength(1);
    expect(event[0]?.status).toBe('failed');
    expect(event[0]?.tests.find((test) => test.name === 'ui pass in dir')?.errorMessage).toBeNull();

    const artifacts = (await t.api({ method: 'GET', url: `/v1/test-runs/${dirRunId}/artifacts` })).json()
      .data as Array<{
      key: string;
      type: string;
      url: string;
      testName?: string;
    }>;
    const keys = artifacts.map((artifact) => artifact.key);
    expect(keys.slice(0, 4)).toEqual([
      'bundle.tgz',
      'playwright-report.tar.gz',
      'test-results.json',
      'test-run.log',
    ]);
    expect(artifacts.find((artifact) => artifact.key === 'test-run.log')?.type).toBe('log');
    const trace = artifacts.find((artifact) => artifact.type === 'trace');
    expect(trace?.key.startsWith('tests/ui fail/')).toBe(true);
    expect(trace?.testName).toBe('ui fail');
    expect(keys.some((key) => key.startsWith('tests/ui pass in dir/'))).toBe(false);

    // Presigned URLs download without an API key; a tampered one is refused.
    const log = artifacts.find((artifact) => artifact.key === 'test-run.log') as { url: string };
    const logPath = log.url.slice(t.config.publicUrl.length);
    const download = await t.app.inject({ method: 'GET', url: logPath });
    expect(download.statusCode).toBe(200);
    expect(download.body).not.toContain(secretValue);
    const tampered = logPath.replace(
      /signature=([0-9a-f])/,
      (_m, c: string) => `signature=${c === 'a' ? 'b' : 'a'}`,
    );
    expect((await t.app.inject({ method: 'GET', url: tampered })).statusCode).toBe(403);
    const otherKey = logPath.replace('test-run.log', 'test-results.json');
    expect((await t.app.inject({ method: 'GET', url: otherKey })).statusCode).toBe(403);

    // The bundle is the compiled project and never holds a secret value.
    const bundle = artifacts.find((artifact) => artifact.key === 'bundle.tgz') as { url: string };
    const bundleResponse = await t.app.inject({
      method: 'GET',
      url: bundle.url.slice(t.config.publicUrl.length),
    });
    expect(bundleResponse.statusCode).toBe(200);
    const extract = fs.mkdtempSync(path.join(os.tmpdir(), 'bundle-'));
    fs.writeFileSync(path.join(extract, 'b.tgz'), bundleResponse.rawPayload);
    execFileSync('tar', ['xzf', 'b.tgz'], { cwd: extract });
    expect(fs.existsSync(path.join(extract, 'playwright.config.ts'))).toBe(true);
    fs.rmSync(path.join(extract, 'b.tgz'));
    const files = fs
      .readdirSync(extract, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile());
    expect(files.length).toBeGreaterThan(2);
    for (const file of files)
      expect(fs.readFileSync(path.join(file.parentPath, file.name), 'utf8')).not.toContain(secretValue);
    fs.rmSync(extract, { recursive: true, force: true });
  });

  it('renders the HTML report of a finished run', async () => {
    const response = await t.api({ method: 'GET', url: `/v1/test-runs/${dirRunId}/report` });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/text\/html/);
    expect(response.body).toContain('ui suite');
    expect(response.body).toContain('ui fail');
    expect(response.body).toContain('Something else');
    expect(response.body).not.toMatch(/<link|<script/);
  });

  it('runs a list (failing) and a tag (passing) through the bulk endpoint', async () => {
    offsetMs += 11_000;
    const ok = await createTest(t, apiTest('list ok', `${site.url}/status?code=200`, 200));
    const bad = await createTest(t, apiTest('list bad', `${site.url}/status?code=500`, 200));
    const list = await bulk({ testIds: [ok, bad] });
    expect(list.statusCode).toBe(200);
    const listRun = await waitForStatus(t, list.json().data.runId, ['completed', 'failed']);
    expect(listRun.status).toBe('failed');
    expect(listRun.stats).toEqual({ passed: 1, failed: 1, skipped: 0, total: 2 });

    offsetMs += 11_000;
    const tagId = await createTag(t, 'nightly');
    await createTest(t, apiTest('tag ok', `${site.url}/status?code=201`, 201, { tags: [tagId] }));
    const tag = await bulk({ tagId });
    expect(tag.statusCode).toBe(200);
    const tagRun = await waitForStatus(t, tag.json().data.runId, ['completed', 'failed']);
    expect(tagRun.status).toBe('completed');
    expect((tagRun.report as { runTypeInfo: { type: string } }).runTypeInfo.type).toBe('tag');
  });

  it('counts completed and failed runs in stats', async () => {
    const stats = (await t.api({ method: 'GET', url: `/v1/test-runs/stats?testId=${uiPassId}` })).json().data;
    const leaf = (await t.api({ method: 'GET', url: `/v1/test-runs/${leafRunId}` })).json().data;
    expect(stats).toMatchObject({
      totalRuns: 1,
      passed: 1,
      failed: 0,
      successRate: 100,
      avgDuration: leaf.duration,
    });
  });

  it('holds runs in pending while the concurrency cap is used', async () => {
    await setCap(t, 1);
    const first = await createTest(t, apiTest('slow one', `${site.url}/slow?ms=2500&n=1`));
    const second = await createTest(t, apiTest('slow two', `${site.url}/slow?ms=100&n=2`));
    const a = (await trigger(first)).json().data.runId as string;
    const b = (await trigger(second)).json().data.runId as string;
    await waitForStatus(t, a, ['running']);
    const waiting = (await t.api({ method: 'GET', url: `/v1/test-runs/${b}` })).json().data;
    expect(waiting.status).toBe('pending');
    const runA = await waitForStatus(t, a, ['completed', 'failed']);
    const runB = await waitForStatus(t, b, ['completed', 'failed']);
    expect([runA.status, runB.status]).toEqual(['completed', 'completed']);
    expect(String(runB.startedAt) >= String(runA.completedAt)).toBe(true);
    await setCap(t, 2);
  });

  it('cancels a running browser run and ends its process group', async () => {
    const slow = await createTest(t, {
      name: 'ui wait',
      steps: [
        { name: 'open', action: { name: 'goto', url: '/page?cancel=1' } },
        { name: 'wait', action: { name: 'wait', ms: 120000 } },
      ],
    });
    const runId = (await trigger(slow, { config: { use: { baseURL: site.url }, timeout: 300000 } })).json()
      .data.runId;
    await waitForStatus(t, runId, ['running']);
    const deadline = Date.now() + 60_000;
    while (!site.hits.get('/page?cancel=1') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    expect(site.hits.get('/page?cancel=1')).toBe(1);
    const group = runGroupOf([process.pid]);
    expect(group).toBeDefined();
    expect(groupMembers(group as number).length).toBeGreaterThan(1);

    const response = await t.api({ method: 'POST', url: `/v1/test-runs/${runId}/cancel` });
    expect(response.statusCode).toBe(200);
    expect(response.json().data.success).toBe(true);
    const gone = Date.now() + 15_000;
    while (groupMembers(group as number).length > 0 && Date.now() < gone)
      await new Promise((r) => setTimeout(r, 100));
    expect(groupMembers(group as number)).toEqual([]);
    const run = (await t.api({ method: 'GET', url: `/v1/test-runs/${runId}` })).json().data;
    expect(run).toMatchObject({ status: 'cancelled', report: null });
    expect(run.cancelledAt).toEqual(expect.any(String));
    await new Promise((r) => setTimeout(r, 1000));
    expect(eventsOf(runId)).toEqual([]);
    expect((await t.api({ method: 'POST', url: `/v1/test-runs/${runId}/cancel` })).statusCode).toBe(400);
  });
});
