import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import nock from 'nock';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { resultsMarkdown } from '../src/report/markdown.ts';
import {
  type AttemptResults,
  findPreviousResults,
  planRerun,
  resultsArtifactName,
  resultsFileName,
  withCarriedOver,
  writeAttemptResults,
} from '../src/rerun.ts';
import type { Results, TestOutcome } from '../src/results.ts';
import { zipOf as zipFile } from './zip.ts';

const github = 'http://github.test/api/v3';
const blobs = 'http://blobs.test';
const key = 'CI/e2e/chromium';
let dir: string;
const savedEnv = { ...process.env };

const env = (attempt: number): NodeJS.ProcessEnv => ({
  GITHUB_RUN_ATTEMPT: String(attempt),
  GITHUB_RUN_ID: '4242',
  GITHUB_REPOSITORY: 'octo/shop',
  GITHUB_API_URL: github,
});

const outcome = (testId: string, name: string, status: string): TestOutcome => ({
  runId: 'r1',
  testId,
  name,
  status,
  durationMs: 100,
  errorMessage: status === 'failed' ? 'boom' : null,
  errorLocation: null,
  failedStep: null,
  expected: null,
  received: null,
  errorDetail: null,
  flaky: false,
});

const attempt1: Results = {
  status: 'failed',
  runs: [{ runId: 'r1', status: 'failed', url: 'u', runnerError: null }],
  stats: { passed: 2, failed: 1, skipped: 0, total: 3, flaky: 0 },
  durationMs: 300,
  tests: [
    outcome('t2', 'checkout', 'failed'),
    outcome('t1', 'login', 'passed'),
    outcome('t3', 'search', 'passed'),
  ],
};

/** The zip GitHub serves for an artifact holding the results file of `results`. */
async function zipOf(results: Results, attempt: number): Promise<Buffer> {
  const source = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-zip-'));
  const file = writeAttemptResults(source, results, { attempt, commentKey: key });
  return zipFile(resultsFileName, fs.readFileSync(file, 'utf8'));
}

const listing = (artifacts: Array<{ id: number; name: string }>) => ({
  total_count: artifacts.length,
  artifacts: artifacts.map((artifact) => ({
    ...artifact,
    size_in_bytes: 10,
    created_at: '2026-11-23T10:00:00Z',
  })),
});

beforeAll(() => nock.disableNetConnect());
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-rerun-'));
  // @actions/github reads the API address from the environment.
  process.env.GITHUB_API_URL = github;
});
afterEach(() => {
  process.env = { ...savedEnv };
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending).toEqual([]);
});

describe('findPreviousResults', () => {
  it('finds the newest earlier attempt of this comment key across attempts and reads its results', async () => {
    const zip = await zipOf(attempt1, 1);
    nock(github, { reqheaders: { authorization: /ghs_token/ } })
      .get('/repos/octo/shop/actions/runs/4242/artifacts')
      .query(true)
      .reply(
        200,
        listing([
          { id: 11, name: 'stepdeck-e2e-0a1b2c3d-1' },
          { id: 12, name: resultsArtifactName(key, 1) },
          { id: 13, name: resultsArtifactName('CI/e2e/firefox', 1) },
          // This attempt's own (a retried step) is never taken for an earlier one.
          { id: 14, name: resultsArtifactName(key, 2) },
        ]),
      )
      .get('/repos/octo/shop/actions/artifacts/12/zip')
      .reply(302, '', { location: `${blobs}/artifact-12.zip?sig=secret` });
    nock(blobs).get('/artifact-12.zip').query(true).reply(200, zip, { 'content-type': 'application/zip' });

    const lookup = await findPreviousResults({ token: 'ghs_token', commentKey: key, env: env(2), dir });
    expect(lookup.found?.attempt).toBe(1);
    expect(lookup.found?.tests.map((test) => [test.testId, test.status])).toEqual([
      ['t2', 'failed'],
      ['t1', 'passed'],
      ['t3', 'passed'],
    ]);
  });

  it('says why when no earlier results exist, and does not ask GitHub on the first attempt', async () => {
    nock(github)
      .get('/repos/octo/shop/actions/runs/4242/artifacts')
      .query(true)
      .reply(200, listing([{ id: 11, name: 'stepdeck-e2e-0a1b2c3d-1' }]));
    const missing = await findPreviousResults({ token: 'ghs_token', commentKey: key, env: env(2), dir });
    expect(missing).toEqual({ found: undefined, reason: 'no results of an earlier attempt were found' });

    const first = await findPreviousResults({ token: 'ghs_token', commentKey: key, env: env(1), dir });
    expect(first).toEqual({ found: undefined, reason: 'first attempt' });
    const noToken = await findPreviousResults({ token: undefined, commentKey: key, env: env(3), dir });
    expect(noToken.found).toBeUndefined();
  });
});

describe('findPreviousResults with a token or a GitHub that fails', () => {
  it('403 on the listing: one request, no retry, a reason naming actions: read', async () => {
    let requests = 0;
    nock(github)
      .get('/repos/octo/shop/actions/runs/4242/artifacts')
      .query(true)
      .times(6)
      .reply(() => {
        requests += 1;
        return [403, { message: 'Resource not accessible by integration' }];
      });
    const lookup = await findPreviousResults({ token: 'ghs_token', commentKey: key, env: env(2), dir });
    expect(requests).toBe(1);
    expect(lookup).toEqual({
      found: undefined,
      problem: true,
      reason:
        'the github-token cannot list this workflow run\'s artifacts (403 Resource not accessible by integration): give the job "permissions: actions: read", or set "rerun: all"',
    });
    nock.cleanAll();
  }, 10_000);

  it('5xx on the listing: reported once, not retried for a minute', async () => {
    let requests = 0;
    nock(github)
      .get('/repos/octo/shop/actions/runs/4242/artifacts')
      .query(true)
      .times(6)
      .reply(() => {
        requests += 1;
        return [503, { message: 'Service Unavailable' }];
      });
    const lookup = await findPreviousResults({ token: 'ghs_token', commentKey: key, env: env(2), dir });
    expect(requests).toBe(1);
    expect(lookup).toMatchObject({ found: undefined, problem: true });
    expect(lookup.found === undefined && lookup.reason).toMatch(
      /^could not list this workflow run's artifacts \(503 /,
    );
    nock.cleanAll();
  }, 10_000);

  it('a GitHub that never answers: the lookup ends at its deadline with a reason', async () => {
    // A real socket that accepts and never answers (nock's delay cannot be aborted cleanly).
    const silent = http.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    nock.enableNetConnect('127.0.0.1');
    const address = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    try {
      process.env.GITHUB_API_URL = address;
      const lookup = await findPreviousResults({
        token: 'ghs_token',
        commentKey: key,
        env: { ...env(2), GITHUB_API_URL: address },
        dir,
        deadlineMs: 300,
      });
      expect(lookup).toMatchObject({ found: undefined, problem: true });
      expect(lookup.found === undefined && lookup.reason).toMatch(
        /could not list this workflow run's artifacts .*(abort|timeout)|took longer than/i,
      );
    } finally {
      nock.disableNetConnect();
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  }, 10_000);
});

describe('planRerun and withCarriedOver', () => {
  const previous = (): AttemptResults =>
    JSON.parse(fs.readFileSync(writeAttemptResults(dir, attempt1, { attempt: 1, commentKey: key }), 'utf8'));

  it('runs only what failed or did not finish and carries the passes over', () => {
    const unfinished = previous();
    unfinished.tests.push({
      testId: 't4',
      name: 'pay',
      status: 'timedOut',
      flaky: false,
      durationMs: 0,
      attempt: 1,
    });
    const planned = planRerun(unfinished);
    expect(planned.plan?.testIds).toEqual(['t2', 't4']);
    expect(planned.plan?.carried.map((test) => test.testId)).toEqual(['t1', 't3']);

    const now: Results = {
      status: 'passed',
      runs: [{ runId: 'r2', status: 'completed', url: 'u2', runnerError: null }],
      stats: { passed: 2, failed: 0, skipped: 0, total: 2, flaky: 0 },
      durationMs: 50,
      tests: [outcome('t2', 'checkout', 'passed'), outcome('t4', 'pay', 'passed')],
    };
    const merged = withCarriedOver(now, planned.plan?.carried ?? []);
    expect(merged.stats).toEqual({ passed: 4, failed: 0, skipped: 0, total: 4, flaky: 0 });
    expect(merged.carriedOver).toBe(2);
    expect(merged.tests.filter((test) => test.carriedFromAttempt === 1).map((test) => test.name)).toEqual([
      'login',
      'search',
    ]);

    const markdown = resultsMarkdown(merged);
    expect(markdown).toContain('**2** carried over from an earlier attempt');
    expect(markdown).toContain('| login | ✅ passed (attempt 1, carried over) |');

    // Attempt 3 keeps knowing that login passed in attempt 1.
    const written: AttemptResults = JSON.parse(
      fs.readFileSync(writeAttemptResults(dir, merged, { attempt: 2, commentKey: key }), 'utf8'),
    );
    expect(written.tests.find((test) => test.testId === 't1')?.attempt).toBe(1);
    expect(written.tests.find((test) => test.testId === 't2')?.attempt).toBe(2);
  });

  it('runs everything when nothing failed or nothing was recorded, and says why', () => {
    const passed = previous();
    passed.tests = passed.tests.filter((test) => test.status === 'passed');
    expect(planRerun(passed)).toEqual({ plan: undefined, reason: 'nothing failed in attempt 1' });
    const empty = { ...previous(), tests: [], status: 'timeout' };
    expect(planRerun(empty)).toEqual({
      plan: undefined,
      reason: 'attempt 1 recorded no test results (timeout)',
    });
  });
});
