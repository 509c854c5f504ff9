import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openQueue } from '../../../src/adapters/queue/index.ts';
import { systemClock } from '../../../src/clock.ts';
import {
  type FiringJob,
  fireJob,
  queueDispatch,
  workFirings,
} from '../../../src/modules/schedules/firing.ts';
import { runStarter } from '../../../src/modules/schedules/runs-port.ts';
import { Scheduler } from '../../../src/modules/schedules/scheduler.ts';
import { consoleCsrf, createPostgresDatabase, createTestApp } from '../../helper.ts';
import {
  createActiveTest,
  createSchedule,
  eventually,
  finishRuns,
  firerFor,
  firingsOf,
  manualClock,
  runsOf,
  schedulerFor,
} from './fixtures.ts';

/** A firing with its outcome recorded (not waiting for, or in the middle of, its job). */
const settled = (row: { outcome: string }) => row.outcome !== 'claimed' && row.outcome !== 'firing';

// Background work of other modules listens on SMTP; a free port keeps parallel files apart.
const backgroundEnv = { SMTP_PORT: '0' };

describe('schedule durability', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    cleanups.length = 0;
  });
  const tempDir = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-schedules-'));
    cleanups.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
    return dir;
  };
  const open = async (options: Parameters<typeof createTestApp>[0]) => {
    const t = await createTestApp(options);
    cleanups.push(() => t.close());
    return t;
  };

  it('fires a tick missed while the service was down once after a restart, not once per tick', async () => {
    const dataDir = tempDir();
    const before = manualClock('2030-06-01T08:00:00.000Z');
    const first = await createTestApp({ dataDir, clock: before });
    const testId = await createActiveTest(first, 'hourly test');
    const schedule = await createSchedule(first, { name: 'hourly', testIds: [testId], cron: '0 * * * *' });
    expect(schedule.nextRunAt).toBe('2030-06-01T09:00:00.000Z');
    await first.close();

    // Down from 08:00 to 13:30: the 09, 10, 11, 12 and 13 o'clock ticks were missed.
    const after = manualClock('2030-06-01T13:30:00.000Z');
    const restarted = await open({ dataDir, clock: after, background: true, env: backgroundEnv });
    const firings = await eventually(async () => {
      const rows = await firingsOf(restarted, schedule.id);
      return rows.length > 0 && rows.every(settled) ? rows : undefined;
    });
    expect(firings.map((row) => [row.tickAt, row.outcome])).toEqual([
      ['2030-06-01T09:00:00.000Z', 'started'],
    ]);
    expect(await runsOf(restarted, schedule.id)).toHaveLength(1);
    const stored = (await restarted.api({ method: 'GET', url: `/v1/schedules/${schedule.id}` })).json().data;
    expect(stored.nextRunAt).toBe('2030-06-01T14:00:00.000Z');
    // Nothing else is due at this instant: a further pass fires nothing.
    expect(await schedulerFor(restarted, after).fireDue()).toEqual([]);
  });

  it('fires from the background timer of a running app on an every-second cron', async () => {
    const t = await open({ background: true, env: backgroundEnv });
    const testId = await createActiveTest(t, 'timer test');
    const schedule = await createSchedule(t, { name: 'timer', testIds: [testId] });
    for (let count = 1; count <= 2; count++) {
      await eventually(async () => ((await runsOf(t, schedule.id)).length >= count ? true : undefined));
      await finishRuns(t, schedule.id);
    }
    await t.app.inject({
      method: 'DELETE',
      url: `/console/v1/schedules/${schedule.id}`,
      headers: { cookie: await t.consoleCookie(), ...consoleCsrf },
    });
    const runs = await t.ctx.db.selectFrom('runs').select(['id', 'scheduleType']).execute();
    expect(runs.length).toBeGreaterThanOrEqual(2);
    expect(runs.every((run) => run.scheduleType === 'cron')).toBe(true);
  });

  describe('two instances on one PostgreSQL database', () => {
    async function twoInstances(options: { background: boolean; clock?: ReturnType<typeof manualClock> }) {
      const database = await createPostgresDatabase();
      cleanups.push(database.drop);
      const dataDir = tempDir();
      const common = {
        dataDir,
        databaseUrl: database.url,
        background: options.background,
        env: backgroundEnv,
        ...(options.clock ? { clock: options.clock } : {}),
      };
      const a = await open(common);
      const b = await open(common);
      return [a, b] as const;
    }

    it('claims each tick on exactly one instance when both fire at the same instant', async () => {
      const clock = manualClock('2030-06-01T08:00:00.500Z');
      const [a, b] = await twoInstances({ background: false, clock });
      const testId = await createActiveTest(a, 'shared test');
      const schedule = await createSchedule(a, { name: 'shared', testIds: [testId] });
      const schedulers = [schedulerFor(a, clock), schedulerFor(b, clock)];
      for (let tick = 1; tick <= 5; tick++) {
        clock.advance(1000);
        const results = await Promise.all(schedulers.map((scheduler) => scheduler.fireDue()));
        expect(results.flat(), `tick ${tick}`).toEqual([{ scheduleId: schedule.id, outcome: 'started' }]);
        await finishRuns(a, schedule.id);
      }
      const firings = await firingsOf(b, schedule.id);
      expect(firings).toHaveLength(5);
      expect(new Set(firings.map((row) => row.tickAt)).size).toBe(5);
      expect((await runsOf(b, schedule.id)).map((run) => run.id).sort()).toEqual(
        firings.map((row) => row.runId).sort(),
      );
    });

    it('sends a claimed tick through the queue to the instance that works it, firing it once', async () => {
      const clock = manualClock('2030-06-01T08:00:00.500Z');
      const [a, b] = await twoInstances({ background: false, clock });
      const testId = await createActiveTest(a, 'queued test');
      const schedule = await createSchedule(a, { name: 'queued', testIds: [testId] });

      // Instance A: a timer pass that claims ticks and sends them, and no schedules.fire worker.
      const queueA = await openQueue(a.config, { listen: false, log: a.ctx.log });
      cleanups.push(() => queueA.stop());
      const sentByA: FiringJob[] = [];
      const sendA = queueDispatch(queueA);
      const schedulerA = new Scheduler({
        db: a.ctx.db,
        clock,
        log: a.ctx.log,
        dispatch: async (job) => {
          sentByA.push(job);
          return sendA(job);
        },
      });
      // Instance B: claims too, and is the only process working schedules.fire.
      const queueB = await openQueue(b.config, { log: b.ctx.log });
      const firerB = firerFor(b, clock, runStarter(b.ctx));
      const performedByB: Array<{ firingId: string; outcome: string | undefined }> = [];
      const stopB = await workFirings(
        queueB,
        {
          perform: async (job) => {
            const outcome = await firerB.perform(job);
            performedByB.push({ firingId: job.firingId, outcome });
            return outcome;
          },
        },
        b.ctx.log,
      );
      cleanups.push(async () => {
        await queueB.stop();
        await stopB();
      });
      const schedulerB = new Scheduler({
        db: b.ctx.db,
        clock,
        log: b.ctx.log,
        dispatch: queueDispatch(queueB),
      });
      const settledFirings = (count: number) =>
        eventually(async () => {
          const rows = await firingsOf(a, schedule.id);
          return rows.length === count && rows.every(settled) ? rows : undefined;
        });

      // Ticks 1-3: only A's timer passes. A claims and enqueues; B's worker fires.
      for (let tick = 1; tick <= 3; tick++) {
        clock.advance(1000);
        expect(await schedulerA.fireDue(), `tick ${tick}`).toEqual([
          { scheduleId: schedule.id, outcome: 'queued' },
        ]);
        const firings = await settledFirings(tick);
        expect(firings[tick - 1]).toMatchObject({ outcome: 'started', runId: expect.any(String) });
        await finishRuns(a, schedule.id);
      }
      const claimedByA = (await firingsOf(a, schedule.id)).map((row) => row.id);
      expect(sentByA.map((job) => job.firingId)).toEqual(claimedByA);
      expect(performedByB).toEqual(claimedByA.map((firingId) => ({ firingId, outcome: 'started' })));

      // Ticks 4-6: both pass at the same instant; one claims, the queue brings it to B, once.
      for (let tick = 4; tick <= 6; tick++) {
        clock.advance(1000);
        const results = await Promise.all([schedulerA.fireDue(), schedulerB.fireDue()]);
        expect(results.flat(), `tick ${tick}`).toEqual([{ scheduleId: schedule.id, outcome: 'queued' }]);
        await settledFirings(tick);
        await finishRuns(a, schedule.id);
      }

      // A redelivered job (a pg-boss retry, a takeover re-sending) is harmless: the firing has
      // its outcome, so B's worker takes it and does nothing.
      const redelivered = sentByA[0] as FiringJob;
      await queueA.send(fireJob, { ...redelivered });
      await eventually(async () => (performedByB.length === 7 ? true : undefined));
      expect(performedByB[6]).toEqual({ firingId: redelivered.firingId, outcome: undefined });

      const firings = await firingsOf(b, schedule.id);
      const runs = await runsOf(b, schedule.id);
      expect(firings).toHaveLength(6);
      expect(new Set(firings.map((row) => row.tickAt)).size).toBe(6);
      expect(firings.every((row) => row.outcome === 'started')).toBe(true);
      expect(runs).toHaveLength(6);
      expect(firings.map((row) => row.runId).sort()).toEqual(runs.map((run) => run.id).sort());
      expect(
        performedByB
          .filter((entry) => entry.outcome === 'started')
          .map((entry) => entry.firingId)
          .sort(),
      ).toEqual(firings.map((row) => row.id).sort());
    });

    it('fires each tick once with both background timers running', async () => {
      const [a, b] = await twoInstances({ background: true });
      expect(a.ctx.clock).toBe(systemClock);
      const testId = await createActiveTest(a, 'timed shared test');
      const schedule = await createSchedule(a, { name: 'timed shared', testIds: [testId] });
      for (let count = 1; count <= 3; count++) {
        await eventually(async () => ((await runsOf(b, schedule.id)).length >= count ? true : undefined));
        await finishRuns(b, schedule.id);
      }
      await b.app.inject({
        method: 'POST',
        url: `/v1/schedules/${schedule.id}/disable`,
        headers: { 'x-api-key': b.bootstrap.apiKey },
      });
      // Disabled: no new claims; wait for a firing in flight to record its outcome.
      const firings = await eventually(async () => {
        const rows = await firingsOf(a, schedule.id);
        return rows.every(settled) ? rows : undefined;
      });
      const runs = await runsOf(a, schedule.id);
      const started = firings.filter((row) => row.outcome === 'started');
      // Every run came from one claimed tick, and no tick was fired twice.
      expect(new Set(firings.map((row) => row.tickAt)).size).toBe(firings.length);
      expect(started.map((row) => row.runId).sort()).toEqual(runs.map((run) => run.id).sort());
    });
  });
});
