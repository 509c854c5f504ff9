import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleCall, createTestApp, type TestApp } from '../../helper.ts';
import { createActiveTest, createSchedule, eventually, firingsOf, runsOf } from './fixtures.ts';

describe("a lapsed organization's schedules", () => {
  let t: TestApp;
  let cookie: string;
  const subscription = (active: boolean) =>
    consoleCall(t.app, cookie, {
      method: 'PUT',
      url: `/console/v1/install/organizations/${t.bootstrap.organizationId}/subscription`,
      payload: { active },
    });

  beforeAll(async () => {
    // The real scheduler, ticking every second on the system clock.
    t = await createTestApp({ background: true });
    cookie = await t.consoleCookie();
  });
  afterAll(async () => t?.close());

  it('fire nothing while lapsed (skipped, with the reason on the schedule), refuse creation and enabling, and fire again once renewed', async () => {
    const testId = await createActiveTest(t, 'lapsed target');
    const schedule = await createSchedule(t, { testIds: [testId], name: 'every second' });
    const paused = await createSchedule(t, { testIds: [testId], name: 'paused', enabled: false });
    expect((await subscription(false)).statusCode).toBe(200);
    const skippedFirings = async () =>
      (await firingsOf(t, schedule.id)).filter((firing) => firing.outcome === 'skipped');
    // Counted once a tick was surely skipped: a tick decided just before the lapse may still
    // be inserting its run.
    await eventually(async () => ((await skippedFirings()).length > 0 ? true : undefined));
    const firstSkipped = (await skippedFirings()).length;
    const startedBefore = (await runsOf(t, schedule.id)).length;

    // Three more ticks of an every-second schedule: each one skipped, none started a run.
    const skipped = await eventually(async () => {
      const firings = await skippedFirings();
      return firings.length >= firstSkipped + 3 ? firings : undefined;
    });
    expect(skipped[0]?.message).toBe("The organization's subscription is not active");
    expect((await runsOf(t, schedule.id)).length).toBe(startedBefore);
    const read = await consoleCall(t.app, cookie, { method: 'GET', url: '/console/v1/schedules' });
    const shown = read.json().data.find((item: { id: string }) => item.id === schedule.id);
    expect(shown).toMatchObject({ lastSkipReason: "The organization's subscription is not active" });
    expect(shown.skippedCount).toBeGreaterThanOrEqual(3);

    const create = await consoleCall(t.app, cookie, {
      method: 'POST',
      url: '/console/v1/schedules',
      payload: { name: 'refused', projectId: t.bootstrap.projectId, cron: '* * * * * *', testIds: [testId] },
    });
    expect(create.statusCode).toBe(403);
    expect(create.json()).toEqual({
      code: 'SCHEDULE_SUBSCRIPTION_LAPSED',
      message:
        "The organization's subscription is not active: schedules cannot be created or enabled until it is renewed",
    });
    const enable = await consoleCall(t.app, cookie, {
      method: 'PUT',
      url: `/console/v1/schedules/${paused.id}`,
      payload: { enabled: true },
    });
    expect(enable.statusCode).toBe(403);
    expect(enable.json().code).toBe('SCHEDULE_SUBSCRIPTION_LAPSED');

    expect((await subscription(true)).statusCode).toBe(200);
    await eventually(async () => ((await runsOf(t, schedule.id)).length > startedBefore ? true : undefined));
    await consoleCall(t.app, cookie, { method: 'DELETE', url: `/console/v1/schedules/${schedule.id}` });
  }, 120_000);
});
