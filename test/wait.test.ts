import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { progressReporter } from '../src/cli-progress.ts';
import { summaryText } from '../src/cli-run.ts';
import { StepdeckClient } from '../src/client.ts';
import { junitXml } from '../src/report/junit.ts';
import { resultsMarkdown } from '../src/report/markdown.ts';
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
      })
      .get(`/v1/test-runs/${uuid(10)}/tests`)
      .reply(200, { data: [{ testId: uuid(1), testName: 'slow checkout' }] });
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
    expect(result.unfinished?.get(uuid(10))).toEqual([{ testId: uuid(1), testName: 'slow checkout' }]);
  });

  it("after a timeout no report looks empty or green: the run's tests are listed as not finished", async () => {
    const cancelledRun = runDetail(uuid(10), 'cancelled').data;
    const unfinished = new Map([
      [
        uuid(10),
        [
          { testId: uuid(1), testName: 'slow checkout' },
          { testId: uuid(2), testName: 'slow search' },
        ],
      ],
    ]);
    const results = mergeRuns([cancelledRun], {
      baseUrl: base,
      projectId,
      timedOut: true,
      timeoutMs: 60_000,
      unfinished,
    });
    const why = 'not finished: the run exceeded the 1-minute deadline and was cancelled';
    expect(results.status).toBe('timeout');
    expect(results.note).toBe('the run exceeded the 1-minute deadline and was cancelled');
    expect(results.stats).toEqual({ passed: 0, failed: 2, skipped: 0, total: 2, flaky: 0 });
    expect(results.tests.map((test) => [test.name, test.errorMessage])).toEqual([
      ['slow checkout', why],
      ['slow search', why],
    ]);
    const junit = junitXml(results);
    expect(junit).toContain('<testsuites name="stepdeck" tests="2" failures="2"');
    expect(junit).toContain(`<failure message="slow checkout: ${why}" type="not finished">`);
    const markdown = resultsMarkdown(results);
    // Not "0 ms": a cancelled run has no duration of its own, its start-to-cancel time is used.
    expect(markdown).toContain('**0** passed · **2** failed · **0** skipped · **2** total · 2.0 s');
    expect(markdown).toContain('**The run exceeded the 1-minute deadline and was cancelled.**');
    expect(markdown).toMatch(/\| slow checkout \| ❌ not finished \|/);
    const text = summaryText(results, { runUrls: ['u'], dir: '/tmp/a', junitPath: '/tmp/a/junit.xml' });
    expect(text.split('\n')[0]).toBe(
      'Status: timeout  (0 passed, 2 failed, 0 skipped, 2 total, 2.0 s): the run exceeded the 1-minute deadline and was cancelled',
    );
    expect(text).toContain(`  ✗ slow search\n      ${why}\nRun: u`);
  });

  it('tells a runner error apart from failed tests', () => {
    const run = runDetail(uuid(10), 'failed').data;
    expect(mergeRuns([run], { baseUrl: base, projectId, timedOut: false }).status).toBe('error');
    const cancelled = runDetail(uuid(11), 'cancelled').data;
    expect(mergeRuns([cancelled], { baseUrl: base, projectId, timedOut: false }).status).toBe('cancelled');
  });

  it('the CLI says where the wait stands at least once a minute, and at once on a change', async () => {
    const clock = fakeClock();
    const running = runDetail(uuid(10), 'running').data;
    const counted = { ...running, stats: { passed: 2, failed: 1, skipped: 0, total: 5 } };
    const answers = [running, running, running, running, counted, counted];
    nock(base)
      .get(`/v1/test-runs/${uuid(10)}`)
      .times(answers.length)
      .reply(200, () => ({ data: answers.shift() }))
      .get(`/v1/test-runs/${uuid(10)}`)
      .reply(200, runDetail(uuid(10), 'completed', [{ name: 'a', status: 'passed' }]));
    const lines: string[] = [];
    const client = new StepdeckClient({ baseUrl: base, apiKey, projectId });
    await waitForRuns(client, [uuid(10)], {
      timeoutMs: 600_000,
      pollIntervalMs: 25_000,
      ...clock,
      onPoll: progressReporter((line) => lines.push(line), clock.now),
    });
    // Polls at 0, 25, 50, 75, 100 (counts known), 125 and 150 s (completed).
    expect(lines.map((line) => line.replace(/^\[[^\]]+\] /, ''))).toEqual([
      '00000000 running, 0 ms elapsed',
      '00000000 running, 1 min 15 s elapsed',
      '00000000 running (2 passed, 1 failed of 5), 1 min 40 s elapsed',
      '00000000 completed (1 passed, 0 failed of 1), 2 min 30 s elapsed',
    ]);
  });
});
