import { expect } from 'vitest';
import type { Clock } from '../../../src/clock.ts';
import { Firer, inlineDispatch } from '../../../src/modules/schedules/firing.ts';
import { runStarter } from '../../../src/modules/schedules/runs-port.ts';
import { Scheduler } from '../../../src/modules/schedules/scheduler.ts';
import { consoleCall, createTest, type TestApp } from '../../helper.ts';

/** A clock the test moves by hand (console sessions last 12 h: keep steps small). */
export function manualClock(start: string) {
  let current = new Date(start).getTime();
  return {
    now: () => new Date(current),
    advance(ms: number) {
      current += ms;
    },
  };
}

/** An active leaf test, created through the API (so runs can expand it). */
export async function createActiveTest(t: TestApp, name: string): Promise<string> {
  return (await createTest(t, { name, status: 'active' })).id;
}

export async function createSchedule(t: TestApp, body: Record<string, unknown>) {
  const response = await consoleCall(t.app, await t.consoleCookie(), {
    method: 'POST',
    url: '/console/v1/schedules',
    payload: { name: 'every second', projectId: t.bootstrap.projectId, cron: '* * * * * *', ...body },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json().data as { id: string; nextRunAt: string | null; name: string };
}

/** A firer over the app's own database and the real runs module. */
export function firerFor(t: TestApp, clock: Clock, startRun = runStarter(t.ctx)) {
  return new Firer({ db: t.ctx.db, clock, startRun, log: t.ctx.log });
}

/** A scheduler (not started) that performs its firings inline, so a pass returns their outcomes. */
export function schedulerFor(t: TestApp, clock: Clock) {
  return new Scheduler({ db: t.ctx.db, clock, dispatch: inlineDispatch(firerFor(t, clock)), log: t.ctx.log });
}

export async function runsOf(t: TestApp, scheduleId: string) {
  return t.ctx.db
    .selectFrom('runs')
    .select(['id', 'status', 'scheduleId', 'scheduleType', 'scheduleName', 'triggerType', 'createdAt'])
    .where('scheduleId', '=', scheduleId)
    .orderBy('createdAt', 'asc')
    .execute();
}

export async function firingsOf(t: TestApp, scheduleId: string) {
  return t.ctx.db
    .selectFrom('scheduleFirings')
    .selectAll()
    .where('scheduleId', '=', scheduleId)
    .orderBy('tickAt', 'asc')
    .execute();
}

/** Ends a run the way a runner would (the browser is not what these tests are about). */
export async function finishRuns(t: TestApp, scheduleId: string) {
  await t.ctx.db
    .updateTable('runs')
    .set({ status: 'failed', completedAt: new Date().toISOString() })
    .where('scheduleId', '=', scheduleId)
    .where('status', 'in', ['pending', 'queued', 'running'])
    .execute();
}

/** Polls until `check` returns a value (no timing assertion: only a generous deadline). */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not reached before the deadline');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
