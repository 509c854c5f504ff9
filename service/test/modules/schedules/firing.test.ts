import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleCsrf, createApiKey, createTestApp, databaseKinds, type TestApp } from '../../helper.ts';
import {
  createActiveTest,
  createSchedule,
  finishRuns,
  firerFor,
  firingsOf,
  manualClock,
  runsOf,
  schedulerFor,
} from './fixtures.ts';

describe.each(databaseKinds)('schedule firing on %s', (database) => {
  let t: TestApp;
  // Half a second past a whole second, so every-second ticks fall between steps.
  const clock = manualClock('2030-06-01T08:00:00.500Z');

  beforeAll(async () => {
    t = await createTestApp({ database, clock });
  });
  afterAll(async () => t?.close());

  it('starts exactly one run per tick of an every-second cron, marked with the schedule', async () => {
    const testId = await createActiveTest(t, 'fired test');
    const schedule = await createSchedule(t, { name: 'per second', testIds: [testId] });
    expect(schedule.nextRunAt).toBe('2030-06-01T08:00:01.000Z');
    const scheduler = schedulerFor(t, clock);

    expect(await scheduler.fireDue()).toEqual([]); // not due yet
    for (let tick = 1; tick <= 3; tick++) {
      clock.advance(1000);
      expect(await scheduler.fireDue()).toEqual([{ scheduleId: schedule.id, outcome: 'started' }]);
      // A second pass at the same instant finds nothing: the tick was claimed.
      expect(await scheduler.fireDue()).toEqual([]);
      await finishRuns(t, schedule.id);
    }

    const runs = await runsOf(t, schedule.id);
    expect(runs).toHaveLength(3);
    for (const run of runs) {
      expect(run).toMatchObject({
        scheduleId: schedule.id,
        scheduleType: 'cron',
        scheduleName: 'per second',
        triggerType: 'schedule',
      });
    }
    const firings = await firingsOf(t, schedule.id);
    expect(firings.map((firing) => firing.tickAt)).toEqual([
      '2030-06-01T08:00:01.000Z',
      '2030-06-01T08:00:02.000Z',
      '2030-06-01T08:00:03.000Z',
    ]);
    expect(firings.map((firing) => firing.outcome)).toEqual(['started', 'started', 'started']);
    expect(firings.map((firing) => firing.runId)).toEqual(runs.map((run) => run.id));

    const stored = (await t.api({ method: 'GET', url: `/v1/schedules/${schedule.id}` })).json().data;
    expect(stored).toMatchObject({
      lastRunId: runs[2]?.id,
      lastRunAt: '2030-06-01T08:00:03.500Z',
      nextRunAt: '2030-06-01T08:00:04.000Z',
      skippedCount: 0,
    });
    await t.ctx.db.deleteFrom('schedules').where('id', '=', schedule.id).execute();
  });

  it('records a skipped firing instead of stacking runs while the previous run is active', async () => {
    const testId = await createActiveTest(t, 'slow test');
    const schedule = await createSchedule(t, { name: 'skipper', testIds: [testId] });
    const scheduler = schedulerFor(t, clock);

    clock.advance(1000);
    expect(await scheduler.fireDue()).toEqual([{ scheduleId: schedule.id, outcome: 'started' }]);
    clock.advance(1000);
    expect(await scheduler.fireDue()).toEqual([{ scheduleId: schedule.id, outcome: 'skipped' }]);
    clock.advance(1000);
    expect(await scheduler.fireDue()).toEqual([{ scheduleId: schedule.id, outcome: 'skipped' }]);
    expect(await runsOf(t, schedule.id)).toHaveLength(1);

    const skipped = (await t.api({ method: 'GET', url: `/v1/schedules/${schedule.id}` })).json().data;
    expect(skipped).toMatchObject({ skippedCount: 2, lastSkippedAt: clock.now().toISOString() });
    const firings = await firingsOf(t, schedule.id);
    expect(firings.map((firing) => firing.outcome)).toEqual(['started', 'skipped', 'skipped']);
    expect(firings[1]?.message).toMatch(/still active/);

    await finishRuns(t, schedule.id);
    clock.advance(1000);
    expect(await scheduler.fireDue()).toEqual([{ scheduleId: schedule.id, outcome: 'started' }]);
    expect(await runsOf(t, schedule.id)).toHaveLength(2);
    await finishRuns(t, schedule.id);
    await t.ctx.db.deleteFrom('schedules').where('id', '=', schedule.id).execute();
  });

  it('never fires a disabled schedule and records a failure when the run cannot start', async () => {
    const testId = await createActiveTest(t, 'paused test');
    const paused = await createSchedule(t, { name: 'paused', testIds: [testId], enabled: false });
    const scheduler = schedulerFor(t, clock);
    clock.advance(5000);
    expect(await scheduler.fireDue()).toEqual([]);
    expect(await firingsOf(t, paused.id)).toEqual([]);

    // A tag without active tests: the run is refused (400), the firing says why.
    const tag = await t.app.inject({
      method: 'POST',
      url: '/console/v1/tags',
      headers: { cookie: await t.consoleCookie(), ...consoleCsrf },
      payload: { name: `empty-${database}` },
    });
    const empty = await createSchedule(t, { name: 'empty tag', tagId: tag.json().data.id });
    clock.advance(1000);
    expect(await scheduler.fireDue()).toEqual([{ scheduleId: empty.id, outcome: 'failed' }]);
    const stored = (await t.api({ method: 'GET', url: `/v1/schedules/${empty.id}` })).json().data;
    expect(stored.lastError).toMatch(/No executable tests/);
    expect(stored.lastErrorAt).toBe(clock.now().toISOString());
    expect(stored.nextRunAt > clock.now().toISOString()).toBe(true);
    await t.ctx.db.deleteFrom('schedules').where('id', 'in', [paused.id, empty.id]).execute();
  });

  it('triggers a run now with the bulk remote-run response shape', async () => {
    const testId = await createActiveTest(t, 'triggered test');
    const schedule = await createSchedule(t, { name: 'on demand', testIds: [testId], enabled: false });
    const key = await createApiKey(t, ['schedules:read', 'schedules:run']);
    const trigger = () =>
      t.app.inject({
        method: 'POST',
        url: `/v1/schedules/${schedule.id}/trigger`,
        headers: { 'x-api-key': key },
      });

    const response = await trigger();
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expect(body).toEqual({
      data: { runId: expect.any(String), status: 'pending', totalTests: 1, message: expect.any(String) },
    });
    const runs = await runsOf(t, schedule.id);
    expect(runs.map((run) => run.id)).toEqual([body.data.runId]);
    expect(runs[0]).toMatchObject({ scheduleType: 'cron', triggerType: 'schedule' });
    const stored = (await t.api({ method: 'GET', url: `/v1/schedules/${schedule.id}` })).json().data;
    expect(stored).toMatchObject({ lastRunId: body.data.runId, enabled: false, nextRunAt: null });

    // The test already has an active run: 409, as for remote runs.
    const again = await trigger();
    expect(again.statusCode).toBe(409);
    await finishRuns(t, schedule.id);
    const afterwards = await trigger();
    expect(afterwards.statusCode).toBe(200);
    await finishRuns(t, schedule.id);
  });

  it('refuses to delete a test an enabled schedule targets, and allows it once the schedule is gone', async () => {
    const testId = await createActiveTest(t, 'guarded test');
    const schedule = await createSchedule(t, { name: 'guard', testIds: [testId], cron: '0 3 * * *' });
    const refused = await t.api({ method: 'DELETE', url: `/v1/tests/${testId}` });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().message).toMatch(/guard/);

    const cookie = await t.consoleCookie();
    const removed = await t.app.inject({
      method: 'DELETE',
      url: `/console/v1/schedules/${schedule.id}`,
      headers: { cookie, ...consoleCsrf },
    });
    expect(removed.statusCode).toBe(200);
    const deleted = await t.api({ method: 'DELETE', url: `/v1/tests/${testId}` });
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect(deleted.json()).toEqual({ data: null });
  });

  it('lets the runs list, latest and stats filter by scheduleId', async () => {
    const testId = await createActiveTest(t, 'filtered test');
    const mine = await createSchedule(t, { name: 'mine', testIds: [testId] });
    const otherTestId = await createActiveTest(t, 'other test');
    const other = await createSchedule(t, { name: 'other', testIds: [otherTestId] });
    const scheduler = schedulerFor(t, clock);
    for (let tick = 1; tick <= 2; tick++) {
      clock.advance(1000);
      expect(await scheduler.fireDue()).toHaveLength(2);
      await finishRuns(t, mine.id);
      await finishRuns(t, other.id);
    }
    const mineRuns = await runsOf(t, mine.id);
    expect(mineRuns).toHaveLength(2);

    const list = await t.api({ method: 'GET', url: `/v1/test-runs?scheduleId=${mine.id}` });
    expect(list.statusCode, list.body).toBe(200);
    const listed = list.json().data as Array<{ id: string; scheduleType: string | null }>;
    expect(listed.map((run) => run.id).sort()).toEqual(mineRuns.map((run) => run.id).sort());
    expect(listed.every((run) => run.scheduleType === 'cron')).toBe(true);

    const detail = await t.api({ method: 'GET', url: `/v1/test-runs/${mineRuns[0]?.id}` });
    expect(detail.json().data).toMatchObject({ scheduleId: mine.id, scheduleType: 'cron' });

    const latest = await t.api({ method: 'GET', url: `/v1/test-runs/latest?scheduleId=${mine.id}` });
    expect(latest.statusCode, latest.body).toBe(200);
    expect(latest.json().data.id).toBe(mineRuns[1]?.id);

    const stats = await t.api({ method: 'GET', url: `/v1/test-runs/stats?scheduleId=${other.id}` });
    expect(stats.statusCode, stats.body).toBe(200);
    expect(stats.json().data.totalRuns).toBe(2);

    const none = await t.api({ method: 'GET', url: `/v1/test-runs/latest?scheduleId=${randomUUID()}` });
    expect(none.json()).toEqual({ data: null });
    await t.ctx.db.deleteFrom('schedules').where('id', 'in', [mine.id, other.id]).execute();
  });

  it('finishes a firing whose instance died after claiming it, adopting a run it already made', async () => {
    const testId = await createActiveTest(t, 'crash test');
    const schedule = await createSchedule(t, { name: 'crashy', testIds: [testId], cron: '0 0 1 1 *' });
    const scheduler = schedulerFor(t, clock);
    const claimedAt = new Date(clock.now().getTime() - 3 * 60 * 1000).toISOString();
    const insertClaim = (tickAt: string, firedAt = claimedAt) =>
      t.ctx.db
        .insertInto('scheduleFirings')
        .values({
          id: randomUUID(),
          scheduleId: schedule.id,
          tickAt,
          firedAt,
          outcome: 'claimed',
          runId: null,
          message: null,
        })
        .execute();

    // Died before starting the run: the run is started now, once.
    await insertClaim('2030-01-01T00:00:00.000Z');
    expect(await scheduler.fireDue()).toEqual([{ scheduleId: schedule.id, outcome: 'started' }]);
    expect(await scheduler.fireDue()).toEqual([]);
    const runs = await runsOf(t, schedule.id);
    expect(runs).toHaveLength(1);
    expect((await firingsOf(t, schedule.id))[0]).toMatchObject({ outcome: 'started', runId: runs[0]?.id });

    // Died after creating the run but before recording it: that run is adopted, none added.
    await finishRuns(t, schedule.id);
    clock.advance(1000);
    const claimTime = clock.now().toISOString();
    await insertClaim('2030-01-02T00:00:00.000Z', claimTime);
    clock.advance(3 * 60 * 1000);
    const made = await t.api({ method: 'POST', url: `/v1/schedules/${schedule.id}/trigger` });
    expect(made.statusCode, made.body).toBe(200);
    expect(await scheduler.fireDue()).toEqual([{ scheduleId: schedule.id, outcome: 'started' }]);
    expect(await runsOf(t, schedule.id)).toHaveLength(2);
    const adopted = (await firingsOf(t, schedule.id))[1];
    expect(adopted).toMatchObject({ tickAt: '2030-01-02T00:00:00.000Z', outcome: 'started' });
    expect(adopted?.runId).toBe(made.json().data.runId);
    await finishRuns(t, schedule.id);
    await t.ctx.db.deleteFrom('schedules').where('id', '=', schedule.id).execute();
  });
  it('fires a claimed firing once however often its job is delivered, and re-sends stale ones', async () => {
    const testId = await createActiveTest(t, 'redelivered test');
    const schedule = await createSchedule(t, { name: 'redelivered', testIds: [testId], cron: '0 0 1 1 *' });
    const firer = firerFor(t, clock);
    const insertFiring = async (tickAt: string, outcome: 'claimed' | 'firing', firedAt: string) => {
      const id = randomUUID();
      await t.ctx.db
        .insertInto('scheduleFirings')
        .values({ id, scheduleId: schedule.id, tickAt, firedAt, outcome, runId: null, message: null })
        .execute();
      return { scheduleId: schedule.id, tickAt, firingId: id };
    };

    // Two deliveries of one job: the first fires, the second finds the outcome and does nothing.
    const job = await insertFiring('2031-01-01T00:00:00.000Z', 'claimed', clock.now().toISOString());
    const deliveries = await Promise.all([firer.perform(job), firer.perform(job)]);
    expect(deliveries.sort()).toEqual(['started', undefined]);
    expect(await firer.perform(job)).toBeUndefined();
    expect(await runsOf(t, schedule.id)).toHaveLength(1);
    await finishRuns(t, schedule.id);

    // A worker died while firing (no run made): after 2 minutes a pass takes it over and
    // hands it to its dispatch again (inline here), which fires it once.
    clock.advance(1000);
    const stale = await insertFiring('2032-01-01T00:00:00.000Z', 'firing', clock.now().toISOString());
    const scheduler = schedulerFor(t, clock);
    expect(await scheduler.fireDue()).toEqual([]);
    clock.advance(2 * 60 * 1000 + 1000);
    expect(await scheduler.fireDue()).toEqual([{ scheduleId: schedule.id, outcome: 'started' }]);
    expect(await scheduler.fireDue()).toEqual([]);
    const firing = (await firingsOf(t, schedule.id)).find((row) => row.id === stale.firingId);
    expect(firing).toMatchObject({ outcome: 'started', runId: expect.any(String) });
    expect(await runsOf(t, schedule.id)).toHaveLength(2);
    await finishRuns(t, schedule.id);

    // Disabled between the claim and the job: the firing is closed without a run.
    const late = await insertFiring('2033-01-01T00:00:00.000Z', 'claimed', clock.now().toISOString());
    await t.ctx.db.updateTable('schedules').set({ enabled: 0 }).where('id', '=', schedule.id).execute();
    expect(await firer.perform(late)).toBe('skipped');
    expect(await runsOf(t, schedule.id)).toHaveLength(2);
    const dropped = (await firingsOf(t, schedule.id)).find((row) => row.id === late.firingId);
    expect(dropped).toMatchObject({ outcome: 'skipped', message: expect.stringMatching(/disabled/) });
    const stored = (await t.api({ method: 'GET', url: `/v1/schedules/${schedule.id}` })).json().data;
    expect(stored.skippedCount).toBe(0);
    await t.ctx.db.deleteFrom('schedules').where('id', '=', schedule.id).execute();
  });
});
