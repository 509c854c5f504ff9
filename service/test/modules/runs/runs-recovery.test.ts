import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunFinished } from '../../../src/context.ts';
import { createTestApp, type TestApp } from '../../helper.ts';
import { apiTest, createTest, type Site, startSite, waitForStatus } from './helpers.ts';

describe('restart recovery (embedded)', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-recovery-'));
  let site: Site | undefined;
  let restarted: TestApp | undefined;
  afterAll(async () => {
    await restarted?.close();
    await site?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('fails runs left running by a dead process and dispatches pending ones', async () => {
    site = await startSite();
    const before = await createTestApp({ dataDir });
    const stuckTest = await createTest(before, apiTest('stuck', `${site.url}/status?code=200`));
    const waitingTest = await createTest(before, apiTest('waiting', `${site.url}/status?code=200&w=1`));
    const stuck = (await before.api({ method: 'POST', url: `/v1/tests/${stuckTest}/remote-run` })).json().data
      .runId;
    const waiting = (await before.api({ method: 'POST', url: `/v1/tests/${waitingTest}/remote-run` })).json()
      .data.runId;
    // The process that held `stuck` dies mid-run.
    await before.ctx.db
      .updateTable('runs')
      .set({
        status: 'running',
        runnerId: 'dead-host:1:x',
        startedAt: new Date().toISOString(),
        heartbeatAt: Date.now(),
      })
      .where('id', '=', stuck)
      .execute();
    await before.close();

    const events: RunFinished[] = [];
    // Subscribed before the runner starts (on ready), as the webhooks module is.
    restarted = await createTestApp({
      dataDir,
      background: true,
      env: { RATE_LIMIT_PER_MINUTE: '100000' },
      beforeReady: (ctx) => ctx.events.on('run.finished', (event) => events.push(event)),
    });
    const failed = await waitForStatus(restarted, stuck, ['failed', 'completed']);
    expect(failed.status).toBe('failed');
    const report = failed.report as { runTypeInfo: { runnerError: string } };
    expect(report.runTypeInfo.runnerError).toMatch(/Runner failed/);
    const done = await waitForStatus(restarted, waiting, ['completed', 'failed']);
    expect(done.status).toBe('completed');
    expect(site.hits.get('/status?code=200')).toBeUndefined();
    expect(site.hits.get('/status?code=200&w=1')).toBe(1);
    const deadline = Date.now() + 5000;
    while (events.filter((e) => e.runId === stuck).length === 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    expect(events.filter((event) => event.runId === stuck).map((event) => event.status)).toEqual(['failed']);
  });
});
