import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleCall, createTestApp, type TestApp } from '../../helper.ts';
import { createTest, waitForStatus } from '../runs/helpers.ts';

/**
 * Visual review through the API with real runs in Chromium: the first run records a candidate,
 * approving it makes it the baseline, a changed colour then fails with its ratio until a
 * change is approved, a rejected one keeps failing, and a branch inherits its default
 * branch's baselines until it approves its own.
 */
describe('visual changes: candidates, approval, branches (real Chromium)', () => {
  let t: TestApp;
  let server: http.Server;
  let base = '';
  let color = 'rgb(200, 30, 30)';
  let testId = '';
  let featureId = '';

  beforeAll(async () => {
    server = http.createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(
        `<!doctype html><style>body{margin:0} #box{position:absolute;top:20px;left:20px;width:100px;height:50px;background:${color}}</style><div id="box"></div>`,
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    t = await createTestApp({ background: true, env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    testId = await createTest(t, {
      name: 'Home looks right',
      steps: [
        { name: 'Open', action: { name: 'goto', url: '/' } },
        { name: 'Whole page', action: { name: 'assertScreenshot' } },
      ],
    });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  const onBranch = (branchId?: string): Record<string, string> =>
    branchId ? { 'x-branch-id': branchId } : {};
  const run = async (branchId?: string) => {
    const start = () =>
      t.api({
        method: 'POST',
        url: `/v1/tests/${testId}/remote-run`,
        headers: onBranch(branchId),
        payload: { config: { viewport: { width: 320, height: 200 }, use: { baseURL: base, trace: 'off' } } },
      });
    let response = await start();
    // Runs of one test are 10 s apart (the spec's cooldown): a quick machine waits it out.
    if (response.statusCode === 429) {
      await new Promise((resolve) =>
        setTimeout(resolve, Number(response.headers['retry-after'] ?? 10) * 1000),
      );
      response = await start();
    }
    expect(response.statusCode, response.body).toBe(200);
    const runId = response.json().data.runId as string;
    const finished = (await waitForStatus(t, runId, ['completed', 'failed'], 180_000)) as {
      status: string;
      runnerError?: string | null;
      // biome-ignore lint/suspicious/noExplicitAny: the report as the API returns it, read field by field
      report: any;
    };
    expect(finished.runnerError ?? null).toBeNull();
    return { runId, finished };
  };
  const changesOf = async (runId: string) => {
    const response = await t.api({ method: 'GET', url: `/v1/test-runs/${runId}/visual-changes` });
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as {
      data: Array<{
        id: string;
        status: string;
        decision: string;
        ratio: number;
        decidedBy: string | null;
        images: { baseline: string | null; actual: string | null; diff: string | null };
      }>;
      summary: { new: number; changed: number; pending: number };
    };
  };
  const decide = (runId: string, action: 'approve' | 'reject', payload?: unknown) =>
    t.api({
      method: 'POST',
      url: `/v1/test-runs/${runId}/visual-changes/${action}`,
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });

  /**
   * The report's `imageUrl` (a PR comment's thumbnail): downloaded without an API key, the
   * same PNG as the authenticated images route serves, valid for 7 days.
   */
  const expectSamePicture = async (imageUrl: unknown, imagePath: string | null | undefined) => {
    expect(typeof imageUrl).toBe('string');
    const url = new URL(imageUrl as string);
    expect(url.origin).toBe(new URL(t.config.publicUrl).origin);
    const lifetime = Number(url.searchParams.get('expires')) - Date.now() / 1000;
    expect(lifetime).toBeGreaterThan(604_800 - 600);
    expect(lifetime).toBeLessThanOrEqual(604_800);
    const unkeyed = await t.app.inject({ method: 'GET', url: `${url.pathname}${url.search}` });
    expect(unkeyed.statusCode, unkeyed.body).toBe(200);
    expect(unkeyed.rawPayload.subarray(0, 8)).toEqual(
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    );
    const keyed = await t.api({ method: 'GET', url: imagePath ?? '' });
    expect(keyed.statusCode).toBe(200);
    expect(unkeyed.rawPayload.equals(keyed.rawPayload)).toBe(true);
    return unkeyed.rawPayload;
  };

  let firstRun = '';
  let changedRun = '';

  it('records a candidate on the first run; the run passes and its report lists it as new', async () => {
    const { runId, finished } = await run();
    firstRun = runId;
    expect(finished.status).toBe('completed');
    expect(finished.report.visualChanges).toMatchObject([{ testId, status: 'new', ratio: 0 }]);
    const changes = await changesOf(runId);
    expect(changes.summary).toEqual({ new: 1, changed: 0, pending: 1 });
    const [change] = changes.data;
    expect(change?.images.baseline).toBeNull();
    const picture = await t.api({ method: 'GET', url: change?.images.actual ?? '' });
    expect(picture.statusCode).toBe(200);
    expect(picture.headers['content-type']).toBe('image/png');
    const png = PNG.sync.read(picture.rawPayload);
    expect([png.width, png.height]).toEqual([320, 200]);
    // No diff without a baseline: the thumbnail is the screenshot itself.
    await expectSamePicture(finished.report.visualChanges[0]?.imageUrl, change?.images.actual);
  }, 240_000);

  it('approves the candidate (who and when), and the next run is green against it', async () => {
    const approved = await decide(firstRun, 'approve');
    expect(approved.statusCode, approved.body).toBe(200);
    const [change] = approved.json().data.changes;
    expect(change).toMatchObject({ decision: 'approved', decidedBy: expect.stringMatching(/^API key /) });
    expect(Date.parse(change.decidedAt)).not.toBeNaN();
    const again = await decide(firstRun, 'approve', { changeIds: [change.id] });
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('VISUAL_CHANGE_DECIDED');
    const { runId, finished } = await run();
    expect(finished.status).toBe('completed');
    expect(finished.report.visualChanges).toEqual([]);
    expect((await changesOf(runId)).data).toEqual([]);
  }, 240_000);

  it('fails a changed colour with its ratio; a rejected change keeps failing', async () => {
    color = 'rgb(30, 30, 200)';
    const { runId, finished } = await run();
    changedRun = runId;
    expect(finished.status).toBe('failed');
    const [result] = finished.report.runTypeInfo.testResults;
    // 100×50 of 320×200 pixels changed colour.
    expect(result.errorMessage).toContain('5000 of 64000 pixels (ratio 0.0781) differ, 0 allowed');
    const [change] = (await changesOf(runId)).data;
    expect(change).toMatchObject({ status: 'changed', decision: 'pending' });
    for (const kind of ['baseline', 'diff'] as const) {
      const picture = await t.api({ method: 'GET', url: change?.images[kind] ?? '' });
      expect(picture.statusCode, kind).toBe(200);
    }
    // The thumbnail of a changed screenshot is its diff, not the screenshot.
    const diff = await expectSamePicture(finished.report.visualChanges[0]?.imageUrl, change?.images.diff);
    const actual = await t.api({ method: 'GET', url: change?.images.actual ?? '' });
    expect(diff.equals(actual.rawPayload)).toBe(false);
    const rejected = await decide(runId, 'reject', { changeIds: [change?.id] });
    expect(rejected.statusCode, rejected.body).toBe(200);
    expect((await run()).finished.status).toBe('failed');
  }, 400_000);

  it('lets a branch inherit the default branch’s baseline, then diverge from it', async () => {
    const created = await consoleCall(t.app, await t.consoleCookie(), {
      method: 'POST',
      url: `/console/v1/projects/${t.bootstrap.projectId}/branches`,
      payload: { name: 'redesign' },
    });
    expect(created.statusCode, created.body).toBe(201);
    featureId = created.json().data.id;
    const inherited = await t.api({
      method: 'GET',
      url: '/v1/visual-baselines',
      headers: onBranch(featureId),
    });
    expect(inherited.json().data).toMatchObject([{ testId, inherited: true, viewport: '320x200' }]);
    color = 'rgb(200, 30, 30)';
    const same = await run(featureId);
    expect(same.finished.status).toBe('completed');
    // Compared with the inherited baseline: nothing to review.
    expect(same.finished.report.visualChanges).toEqual([]);
    color = 'rgb(30, 30, 200)';
    const changed = await run(featureId);
    expect(changed.finished.report.visualChanges).toMatchObject([{ status: 'changed' }]);
    expect(changed.finished.status).toBe('failed');
    expect((await decide(changed.runId, 'approve')).statusCode).toBe(200);
    const own = await t.api({ method: 'GET', url: '/v1/visual-baselines', headers: onBranch(featureId) });
    expect(own.json().data).toMatchObject([{ branchId: featureId, inherited: false }]);
    expect((await run(featureId)).finished.status).toBe('completed');
    // The default branch still has the red baseline.
    expect((await run()).finished.status).toBe('failed');
  }, 600_000);

  it('answers 404 for an unknown run and 400 for an empty list of ids', async () => {
    const unknown = await t.api({
      method: 'GET',
      url: '/v1/test-runs/00000000-0000-4000-8000-000000000000/visual-changes',
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().code).toBe('RUN_NOT_FOUND');
    const empty = await decide(changedRun, 'approve', { changeIds: [] });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().message).toContain('changeIds must name at least one change');
  });
});
