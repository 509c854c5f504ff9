import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { StepdeckClient } from '../src/client.ts';
import { mergeRuns } from '../src/results.ts';
import { waitForRuns } from '../src/wait.ts';
import { apiKey, base, projectId, runDetail, uuid } from './fixtures.ts';

/** A fake wall clock advanced only by the waiter's sleeps. */
function fakeClock() {
  let now = 0;
  const sleeps: number[] = [];
  return {
    now: () => now,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      now += ms;
    },
    sleeps,
  };
}

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  expect(nock.pendingMocks()).toEqual([]);
  nock.cleanAll();
});

describe('wait', () => {
  it('polls once per interval with one request per unfinished run until every run ends', async () => {
    const clock = fakeClock();
    nock(base)
      .get(`/v1/test-runs/${uuid(10)}`)
      .reply(200, runDetail(uuid(10), 'queued'))
      .get(`/v1/test-runs/${uuid(10)}`)
      .reply(200, runDetail(uuid(10), 'completed', [{ name: 'a', status: 'passed' }]))
      .get(`/v1/test-runs/${uuid(11)}`)
      .reply(200, runDetail(uuid(11), 'running'))
      .get(`/v1/test-runs/${uuid(11)}`)
      .reply(200, runDetail(uuid(11), 'running'))
      .get(`/v1/test-runs/${uuid(11)}`)
      .reply(200, runDetail(uuid(11), 'failed', [{ name: 'b', status: 'failed', errorMessage: 'boom' }]));
    const client = new StepdeckClient({ baseUrl: base, apiKey, projectId });
    const result = await waitForRuns(client, [uuid(10), uuid(11)], {
      timeoutMs: 60_000,
      pollIntervalMs: 5000,
      ...clock,
    });
    expect(result.timedOut).toBe(false);
    expect(result.runs.map((run) => run.status)).toEqual(['completed', 'failed']);
    expect(clock.sleeps).toEqual([5000, 5000]);
    expect(client.requests).toBe(5);
    // Split runs merge into one result, failed tests first.
    const merged = mergeRuns(result.runs, { baseUrl: base, projectId, timedOut: false });
    expect(merged.status).toBe('failed');
    expect(merged.stats).toEqual({ passed: 1, failed: 1, skipped: 0, total: 2, flaky: 0 });
    expect(merged.tests.map((test) => test.name)).toEqual(['b', 'a']);
    expect(merged.runs.map((run) => run.runId)).toEqual([uuid(10), uuid(11)]);
  });

  it('at the deadline cancels the run and reports timeout', async () => {
    const clock = fakeClock();
    let cancelled = false;
    nock(base)
      .get(`/v1/test-runs/${uuid(10)}`)
      .times(5)
      .reply(200, () => runDetail(uuid(10), cancelled ? 'cancelled' : 'running'))
      .post(`/v1/test-runs/${uuid(10)}/cancel`)
      .reply(200, () => {
        cancelled = true;
        return { data: { success: true, message: 'Run cancelled' } };
      });
    const client = new StepdeckClient({ baseUrl: base, apiKey, projectId });
    const result = await waitForRuns(client, [uuid(10)], {
      timeoutMs: 12_000,
      pollIntervalMs: 5000,
      ...clock,
    });
    expect(result.timedOut).toBe(true);
    expect(clock.sleeps).toEqual([5000, 5000, 2000]);
    expect(result.runs[0]?.status).toBe('cancelled');
    expect(mergeRuns(result.runs, { baseUrl: base, projectId, timedOut: true }).status).toBe('timeout');
  });

  it('tells a runner error apart from failed tests', () => {
    const run = runDetail(uuid(10), 'failed').data;
    expect(mergeRuns([run], { baseUrl: base, projectId, timedOut: false }).status).toBe('error');
    const cancelled = runDetail(uuid(11), 'cancelled').data;
    expect(mergeRuns([cancelled], { baseUrl: base, projectId, timedOut: false }).status).toBe('cancelled');
  });
});
