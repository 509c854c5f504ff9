import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, databaseKinds, type TestApp } from '../../helper.ts';
import { createTest, waitForStatus } from '../runs/helpers.ts';

/**
 * Baselines in the organization's artifact quota, with real runs in Chromium: superseded
 * baselines are kept three per key and older ones deleted with their blobs; the quota counts
 * exactly the baselines kept beside the run artifacts, refusing an approval (409) or leaving a
 * run's files out (the run fails naming the quota) past it; and a device's viewport is part of
 * a baseline's key.
 */
describe.each(databaseKinds)(
  'visual baselines: retention, the artifact quota, devices on %s (real Chromium)',
  (database) => {
    let t: TestApp;
    let server: http.Server;
    let base = '';
    let color = 'rgb(200, 30, 30)';
    let testId = '';

    beforeAll(async () => {
      server = http.createServer((_request, response) => {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        response.end(
          `<!doctype html><style>body{margin:0} #box{position:absolute;top:20px;left:20px;width:100px;height:50px;background:${color}}</style><div id="box"></div>`,
        );
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      t = await createTestApp({ database, background: true, env: { RATE_LIMIT_PER_MINUTE: '100000' } });
      testId = await createTest(t, {
        name: 'Box keeps its colour',
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

    const run = async (id: string, config: Record<string, unknown>) => {
      const start = () =>
        t.api({
          method: 'POST',
          url: `/v1/tests/${id}/remote-run`,
          payload: { config: { ...config, use: { baseURL: base, trace: 'off', screenshot: 'off' } } },
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
        // biome-ignore lint/suspicious/noExplicitAny: the report as the API returns it, read field by field
        report: any;
      };
      return { runId, finished };
    };
    const small = { viewport: { width: 320, height: 200 } };
    const changesOf = async (runId: string) => {
      const response = await t.api({ method: 'GET', url: `/v1/test-runs/${runId}/visual-changes` });
      expect(response.statusCode, response.body).toBe(200);
      return response.json().data as Array<{
        id: string;
        status: string;
        viewport: string;
        images: { baseline: string | null; actual: string | null };
      }>;
    };
    const approve = (runId: string) =>
      t.api({ method: 'POST', url: `/v1/test-runs/${runId}/visual-changes/approve` });
    /** The baseline blobs the store holds, by key, with their sizes. */
    const baselineBlobs = () => {
      const root = path.join(t.dataDir, 'blobs', 'visual');
      if (!fs.existsSync(root)) return new Map<string, number>();
      return new Map(
        (fs.readdirSync(root, { recursive: true, withFileTypes: true }) as fs.Dirent[])
          .filter((entry) => entry.isFile())
          .map((entry) => {
            const file = path.join(entry.parentPath, entry.name);
            return [path.relative(root, file), fs.statSync(file).size] as const;
          }),
      );
    };
    const runArtifactBytes = async () =>
      Number(
        (
          await t.ctx.db
            .selectFrom('runArtifacts')
            .select((eb) => eb.fn.sum<number>('bytes').as('bytes'))
            .executeTakeFirst()
        )?.bytes ?? 0,
      );
    const setQuota = (bytes: number | null) =>
      t.ctx.db
        .updateTable('organizations')
        .set({ artifactQuotaBytes: bytes })
        .where('id', '=', t.bootstrap.organizationId)
        .execute();

    afterEach(() => setQuota(null));

    const colors = ['rgb(200, 30, 30)', 'rgb(30, 200, 30)', 'rgb(30, 30, 200)', 'rgb(200, 200, 30)'];
    let firstBaselineChange = '';

    it('keeps the last three superseded baselines of a key and deletes older ones with their blobs', async () => {
      // Five approvals of one key: the one in use and three superseded are kept, the first goes.
      for (const [index, next] of [...colors, 'rgb(30, 200, 200)'].entries()) {
        color = next;
        const { runId, finished } = await run(testId, small);
        expect(finished.status).toBe(index === 0 ? 'completed' : 'failed');
        const [change] = await changesOf(runId);
        expect(change?.status).toBe(index === 0 ? 'new' : 'changed');
        if (index === 0) firstBaselineChange = change?.id ?? '';
        // While kept, a change still shows the baseline it was compared against.
        if (index === 4)
          expect((await t.api({ method: 'GET', url: change?.images.baseline ?? '' })).statusCode).toBe(200);
        expect((await approve(runId)).statusCode).toBe(200);
      }
      const blobs = baselineBlobs();
      expect(blobs.size).toBe(4);
      expect([...blobs.keys()].some((key) => key.includes(firstBaselineChange))).toBe(false);
      const history = await t.ctx.db.selectFrom('visualBaselineHistory').selectAll().execute();
      expect(history).toHaveLength(3);
      const inUse = await t.api({ method: 'GET', url: '/v1/visual-baselines' });
      expect(inUse.json().data).toMatchObject([{ testId, viewport: '320x200', inherited: false }]);
    }, 600_000);

    it("counts exactly the baselines kept in the organization's quota: an approval past it is refused", async () => {
      color = 'rgb(120, 60, 200)';
      const { runId } = await run(testId, small);
      const [change] = await changesOf(runId);
      const picture = (await t.api({ method: 'GET', url: change?.images.actual ?? '' })).rawPayload.length;
      const kept = [...baselineBlobs().values()].reduce((sum, size) => sum + size, 0);
      const stored = (await runArtifactBytes()) + kept;
      await setQuota(stored + picture - 1);
      const refused = await approve(runId);
      expect(refused.statusCode, refused.body).toBe(409);
      expect(refused.json()).toMatchObject({ code: 'VISUAL_QUOTA_EXCEEDED' });
      expect(refused.json().message).toContain(
        "the organization's stored run artifacts passed the organization's artifact quota",
      );
      expect((await changesOf(runId))[0]).toMatchObject({ id: change?.id });
      expect(baselineBlobs().size).toBe(4);
      // One byte more and it fits: what is counted is what the store keeps, to the byte.
      await setQuota(stored + picture);
      expect((await approve(runId)).statusCode).toBe(200);
    }, 300_000);

    it("leaves a run's screenshots out once the baselines fill the quota, failing the run naming it", async () => {
      const kept = [...baselineBlobs().values()].reduce((sum, size) => sum + size, 0);
      // Over the quota by the baselines alone: nothing of the next run fits.
      await setQuota((await runArtifactBytes()) + kept - 1);
      color = 'rgb(10, 10, 10)';
      const { runId, finished } = await run(testId, small);
      expect(finished.status).toBe('failed');
      expect(String(finished.report.runTypeInfo.runnerError)).toMatch(
        /the organization's stored run artifacts passed the organization's artifact quota \(.+\): stored 0 bytes, left out/,
      );
      // No picture of the run was stored; a change recorded still names none the store holds.
      expect(fs.existsSync(path.join(t.dataDir, 'blobs', 'runs', runId, 'tests'))).toBe(false);
      for (const change of await changesOf(runId)) {
        const actual = await t.api({ method: 'GET', url: change.images.actual ?? '' });
        expect(actual.statusCode).toBe(404);
      }
    }, 300_000);

    it('keys a baseline by the device’s viewport: a Pixel 7 run never meets the desktop baseline', async () => {
      color = 'rgb(200, 30, 30)';
      const deviceTestId = await createTest(t, {
        name: 'Box on a phone',
        steps: [
          { name: 'Open', action: { name: 'goto', url: '/' } },
          { name: 'Whole page', action: { name: 'assertScreenshot' } },
        ],
      });
      const desktop = await run(deviceTestId, {});
      expect(desktop.finished.status).toBe('completed');
      expect(await changesOf(desktop.runId)).toMatchObject([{ status: 'new', viewport: '1920x1080' }]);
      expect((await approve(desktop.runId)).statusCode).toBe(200);
      const phone = await run(deviceTestId, { device: 'Pixel 7' });
      // New on its own key, never "changed" against the desktop picture.
      expect(phone.finished.status).toBe('completed');
      expect(await changesOf(phone.runId)).toMatchObject([{ status: 'new', viewport: '412x839' }]);
      expect((await approve(phone.runId)).statusCode).toBe(200);
      const baselines = await t.api({ method: 'GET', url: `/v1/visual-baselines?testId=${deviceTestId}` });
      expect(
        (baselines.json().data as Array<{ viewport: string }>).map((baseline) => baseline.viewport).sort(),
      ).toEqual(['1920x1080', '412x839']);
      // Each run now meets its own baseline.
      expect((await run(deviceTestId, { device: 'Pixel 7' })).finished.status).toBe('completed');
    }, 600_000);
  },
);
