import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresDatabase, createTestApp, type TestApp } from './helper.ts';
import { apiTest, createTest, type Site, startSite, waitForStatus } from './modules/runs/helpers.ts';
import { startProxy } from './tcp-proxy.ts';

async function sessionsByApplication(databaseUrl: string): Promise<Record<string, number>> {
  const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await admin.connect();
  try {
    const result = await admin.query<{ application_name: string; count: string }>(
      `select application_name, count(*) as count from pg_stat_activity
       where datname = $1 and pid <> pg_backend_pid() group by application_name`,
      [new URL(databaseUrl).pathname.slice(1)],
    );
    return Object.fromEntries(result.rows.map((row) => [row.application_name, Number(row.count)]));
  } finally {
    await admin.end();
  }
}

describe('readiness', () => {
  it('answers 200 on the embedded default with the database and blob store named', async () => {
    const t = await createTestApp();
    try {
      const response = await t.app.inject({ method: 'GET', url: '/readyz' });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({
        status: 'ready',
        components: { database: 'ok', 'blob store': 'ok' },
      });
      expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('says how runs are isolated: their own uids and Chromium’s sandbox, or off with the warning', async () => {
    const isolated = await createTestApp({ background: true });
    try {
      const body = (await isolated.app.inject({ method: 'GET', url: '/readyz' })).json();
      expect(body.isolation).toEqual(
        process.getuid?.() === 0
          ? { mode: 'uid', sandbox: true }
          : { mode: 'sandbox', sandbox: true, warning: expect.stringContaining('share the service’s user') },
      );
    } finally {
      await isolated.close();
    }
    const off = await createTestApp({ background: true, env: { RUNNER_ISOLATION: 'off' } });
    try {
      const body = (await off.app.inject({ method: 'GET', url: '/readyz' })).json();
      expect(body.isolation).toEqual({
        mode: 'off',
        sandbox: false,
        warning: expect.stringContaining('RUNNER_ISOLATION=off: tests run without Chromium’s sandbox'),
      });
    } finally {
      await off.close();
    }
  });

  it('goes 503 naming the database and the queue while PostgreSQL is unreachable, and back to 200', async () => {
    const created = await createPostgresDatabase();
    const direct = new URL(created.url);
    const proxy = await startProxy(direct);
    const viaProxy = new URL(created.url);
    viaProxy.port = String(proxy.port());
    const t = await createTestApp({ database: 'postgres', databaseUrl: viaProxy.toString() });
    try {
      const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode, ready.body).toBe(200);
      expect(ready.json().components).toEqual({ database: 'ok', 'blob store': 'ok', queue: 'ok' });

      await proxy.down();
      const down = await t.app.inject({ method: 'GET', url: '/readyz' });
      expect(down.statusCode).toBe(503);
      expect(down.json().message).toMatch(/database/);
      expect(down.json().message).toMatch(/queue/);
      expect(down.json().components).toMatchObject({ database: 'failing', queue: 'failing' });
      // Liveness is not readiness: the process still answers.
      expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);

      await proxy.up();
      let back = await t.app.inject({ method: 'GET', url: '/readyz' });
      const deadline = Date.now() + 30_000;
      while (back.statusCode !== 200 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        back = await t.app.inject({ method: 'GET', url: '/readyz' });
      }
      expect(back.statusCode, back.body).toBe(200);
    } finally {
      await proxy.up();
      await t.close();
      await created.drop();
      await proxy.down();
    }
  }, 180_000);
});

describe('metrics', () => {
  let site: Site;
  let t: TestApp;
  beforeAll(async () => {
    site = await startSite();
    t = await createTestApp({
      background: true,
      env: { RATE_LIMIT_PER_MINUTE: '100000', METRICS_TOKEN: 'metrics-token-123' },
    });
  });
  afterAll(async () => {
    await t?.close();
    await site?.close();
  });
  const scrape = async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: 'Bearer metrics-token-123' },
    });
    expect(response.statusCode).toBe(200);
    return response.body;
  };
  const value = (body: string, series: string) => {
    const line = body.split('\n').find((row) => row.startsWith(`${series} `));
    return line ? Number(line.slice(series.length + 1)) : undefined;
  };

  it('requires METRICS_TOKEN as a bearer token when set', async () => {
    const none = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(none.statusCode).toBe(401);
    const wrong = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: 'Bearer nope' },
    });
    expect(wrong.statusCode).toBe(401);
    expect(none.body).not.toContain('metrics-token-123');
  });

  it('shows the run slot busy during a run, then the run counted; labels are route templates', async () => {
    const testId = await createTest(t, apiTest('slow', `${site.url}/slow?ms=4000&metrics=1`));
    const runId = (await t.api({ method: 'POST', url: `/v1/tests/${testId}/remote-run` })).json().data
      .runId as string;
    await waitForStatus(t, runId, ['running']);
    const during = await scrape();
    expect(value(during, 'stepdeck_runner_slots_busy')).toBe(1);
    expect(value(during, 'stepdeck_runner_slots_total')).toBe(4);
    expect((await waitForStatus(t, runId, ['completed', 'failed'])).status).toBe('completed');

    // The status is written before the runner lets go of the slot (it still removes the run's
    // folder and process record): the slot frees shortly after, not in the same instant.
    let after = await scrape();
    const deadline = Date.now() + 15_000;
    while (value(after, 'stepdeck_runner_slots_busy') !== 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      after = await scrape();
    }
    expect(value(after, 'stepdeck_runs_total{status="completed"}')).toBe(1);
    expect(value(after, 'stepdeck_runner_slots_busy')).toBe(0);
    expect(value(after, 'stepdeck_runs_pending')).toBe(0);
    expect(value(after, 'stepdeck_run_duration_seconds_count')).toBe(1);
    expect(after).toMatch(/^process_cpu_user_seconds_total /m);
    // Route templates only: never the run's id or any other tenant value.
    expect(after).toContain('route="/v1/test-runs/:runId"');
    expect(after).not.toContain(runId);
    expect(after).not.toContain(testId);
    expect(after).not.toContain(t.bootstrap.projectId);
    expect(after).not.toContain(t.bootstrap.organizationId);
    // An unknown URL is counted without its path.
    const unknown = `/nothing-here/${randomUUID()}`;
    expect((await t.app.inject({ method: 'GET', url: unknown })).statusCode).toBe(404);
    const later = await scrape();
    expect(later).toContain('route="unmatched",status="404"');
    expect(later).not.toContain(unknown);
  });
});

describe('one queue per process (PostgreSQL)', () => {
  it('holds one pg-boss pool after runs, webhooks and schedules all used the queue', async () => {
    const t = await createTestApp({
      database: 'postgres',
      background: true,
      env: { RATE_LIMIT_PER_MINUTE: '100000' },
    });
    try {
      // Each of the three modules sends on the queue: a run wake-up, a webhook announcement, a firing.
      await t.app.runs.wake();
      await t.app.webhooks.announce([randomUUID()]);
      const queue = await t.ctx.queue.open();
      await queue.send('schedules.fire', {});
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const sessions = await sessionsByApplication(t.databaseUrl as string);
      // pg-boss: at most its pool of 4 plus the LISTEN connection, from one instance.
      expect(sessions['stepdeck-queue'] ?? 0).toBeGreaterThan(0);
      expect(sessions['stepdeck-queue']).toBeLessThanOrEqual(5);
      const queueAgain = await t.ctx.queue.open();
      expect(queueAgain).toBe(queue);
    } finally {
      await t.close();
    }
  });
});
