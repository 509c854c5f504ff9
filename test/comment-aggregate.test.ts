import nock from 'nock';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseInputs } from '../src/inputs.ts';
import {
  type AggregateRow,
  aggregateGroup,
  aggregateMarkdown,
  aggregateMarker,
  parseAggregateState,
  upsertAggregateRow,
} from '../src/report/aggregate.ts';
import { report } from '../src/report/index.ts';
import type { Results } from '../src/results.ts';
import { apiKey, projectId, uuid } from './fixtures.ts';

/**
 * `comment-mode: aggregate` against an in-memory issue-comment API (nock): reads answer the
 * comments as they are when the request arrives, writes land after a chosen delay, so two jobs
 * can read the same comment and write over each other as on GitHub.
 */
const github = 'http://github.test';
const pr = { owner: 'acme', repo: 'app', number: 7, fork: false };
const savedEnv = { ...process.env };

interface Stored {
  id: number;
  body: string;
}

function fakeGitHub(options: { writeDelay?: (body: string) => number; readDelay?: () => number } = {}) {
  const comments: Stored[] = [{ id: 1, body: 'unrelated review comment' }];
  const calls = { get: 0, post: 0, patch: 0, delete: 0 };
  let nextId = 100;
  const asJson = (comment: Stored) => ({
    id: comment.id,
    body: comment.body,
    html_url: `https://github.test/acme/app/pull/7#issuecomment-${comment.id}`,
  });
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const idOf = (request: Request) => Number(new URL(request.url).pathname.split('/').pop());
  nock(github)
    .persist()
    .get('/repos/acme/app/issues/7/comments')
    .query(true)
    .reply(async () => {
      calls.get += 1;
      // The comments as they are when the request arrives.
      const snapshot = comments.map(asJson);
      await sleep(options.readDelay?.() ?? 0);
      return [200, snapshot];
    })
    .post('/repos/acme/app/issues/7/comments')
    .reply(async (request: Request) => {
      calls.post += 1;
      const { body } = (await request.json()) as { body: string };
      await sleep(options.writeDelay?.(body) ?? 0);
      const comment = { id: nextId++, body };
      comments.push(comment);
      return [201, asJson(comment)];
    })
    .patch(/^\/repos\/acme\/app\/issues\/comments\/\d+$/)
    .reply(async (request: Request) => {
      calls.patch += 1;
      const { body } = (await request.json()) as { body: string };
      await sleep(options.writeDelay?.(body) ?? 0);
      const comment = comments.find((item) => item.id === idOf(request));
      if (!comment) return [404, { message: 'Not Found' }];
      comment.body = body;
      return [200, asJson(comment)];
    })
    .delete(/^\/repos\/acme\/app\/issues\/comments\/\d+$/)
    .reply((request: Request) => {
      calls.delete += 1;
      const at = comments.findIndex((item) => item.id === idOf(request));
      if (at < 0) return [404, { message: 'Not Found' }];
      comments.splice(at, 1);
      return [204];
    });
  const aggregates = (group: string) =>
    comments.filter((comment) => comment.body.includes(aggregateMarker(group)));
  return { comments, calls, aggregates };
}

const row = (key: string, status: 'passed' | 'failed', extra: Partial<AggregateRow> = {}) => ({
  key,
  status,
  passed: status === 'passed' ? 3 : 2,
  failed: status === 'failed' ? 1 : 0,
  flaky: 0,
  skipped: 0,
  total: 3,
  durationMs: 4200,
  runUrl: `https://stepdeck.test/console/projects/p/runs/${key.replaceAll('/', '-')}`,
  attempt: 1,
  failedTests: status === 'failed' ? ['checkout pays'] : [],
  ...extra,
});

const write = (key: string, status: 'passed' | 'failed', workflowRunId = 9001, log?: (m: string) => void) =>
  upsertAggregateRow({
    token: 'ghs_token',
    pr,
    group: aggregateGroup(key),
    workflowRunId,
    row: row(key, status),
    // Longer than any write's delay below (80 ms at most): the protocol's one assumption.
    settleMs: 150,
    ...(log ? { log } : {}),
  });

const rowKeys = (body: string | undefined) => Object.keys(parseAggregateState(body)?.rows ?? {}).sort();

beforeAll(() => nock.disableNetConnect());
beforeEach(() => {
  process.env.GITHUB_API_URL = github;
});
afterEach(() => {
  process.env = { ...savedEnv };
  nock.cleanAll();
});

describe('comment-mode aggregate', () => {
  it('the comment key prefix groups the jobs; the row is the rest', () => {
    expect(aggregateGroup('CI/e2e/chromium')).toBe('CI/e2e');
    expect(aggregateGroup('e2e/firefox-2of3')).toBe('e2e');
    expect(aggregateGroup('e2e')).toBe('e2e');
  });

  it('two jobs write over each other: the one whose row was dropped writes again, both rows stay', async () => {
    // Job A's first write lands at once, job B's (read at the same moment) 80 ms later, on top.
    const store = fakeGitHub({ writeDelay: (body) => (rowKeys(body).includes('CI/e2e/firefox') ? 80 : 0) });
    const logs: string[] = [];
    const [a, b] = await Promise.all([
      write('CI/e2e/chromium', 'failed', 9001, (message) => logs.push(message)),
      write('CI/e2e/firefox', 'passed', 9001, (message) => logs.push(message)),
    ]);
    expect(a.kind).toMatch(/created|updated/);
    expect(b.kind).toMatch(/created|updated/);
    const [comment, ...more] = store.aggregates('CI/e2e');
    expect(more).toEqual([]);
    expect(rowKeys(comment?.body)).toEqual(['CI/e2e/chromium', 'CI/e2e/firefox']);
    // The race did happen: someone had to write again.
    expect(logs.join('\n')).toContain('another job wrote at the same time');
    expect(store.calls.post + store.calls.patch).toBeGreaterThanOrEqual(3);
    // The unrelated comment is untouched.
    expect(store.comments[0]).toEqual({ id: 1, body: 'unrelated review comment' });
  });

  it('a browser × shard matrix finishing together keeps one comment with a row per job', async () => {
    const store = fakeGitHub({
      readDelay: () => Math.random() * 30,
      writeDelay: () => Math.random() * 40,
    });
    const keys = ['chromium', 'firefox', 'webkit'].flatMap((browser) =>
      [1, 2].map((shard) => `CI/e2e/${browser}-${shard}of2`),
    );
    const results = await Promise.all(
      keys.map((key, index) => write(key, index === 4 ? 'failed' : 'passed')),
    );
    expect(
      results.map((result) => result.kind).every((kind) => kind === 'created' || kind === 'updated'),
    ).toBe(true);
    const [comment, ...more] = store.aggregates('CI/e2e');
    expect(more).toEqual([]);
    expect(rowKeys(comment?.body)).toEqual([...keys].sort());
    const body = comment?.body ?? '';
    expect(body).toContain('### ❌ Stepdeck CI/e2e: failed (6 jobs)');
    expect(body).toContain('**17** passed · **1** failed · **0** skipped · **18** total');
    expect(body).toMatch(
      /\| webkit-1of2 \| ❌ failed \| 2 \| 1 \| 0 \| 0 \| 4\.2 s \| checkout pays \| \[run\]\(/,
    );
    expect(body).toMatch(/\| chromium-1of2 \| ✅ passed \| 3 \| 0 \| 0 \| 0 \| 4\.2 s \| {2}\| \[run\]\(/);
    // Rows sorted by job, one per job.
    expect(body.split('\n').filter((line) => /^\| (chromium|firefox|webkit)-/.test(line))).toHaveLength(6);
  });

  it('two jobs that both find no comment create two: the newer is merged into the older and deleted', async () => {
    const store = fakeGitHub({ writeDelay: () => 10 });
    await Promise.all([write('CI/e2e/chromium', 'passed'), write('CI/e2e/firefox', 'passed')]);
    expect(store.calls.post).toBe(2);
    expect(store.calls.delete).toBeGreaterThanOrEqual(1);
    const [comment, ...more] = store.aggregates('CI/e2e');
    expect(more).toEqual([]);
    expect(comment?.id).toBe(100);
    expect(rowKeys(comment?.body)).toEqual(['CI/e2e/chromium', 'CI/e2e/firefox']);
  });

  it('a new workflow run starts the rows afresh; a job of an older run leaves the comment alone', async () => {
    const store = fakeGitHub();
    await write('CI/e2e/chromium', 'failed', 100);
    await write('CI/e2e/firefox', 'failed', 100);
    expect(rowKeys(store.aggregates('CI/e2e')[0]?.body)).toEqual(['CI/e2e/chromium', 'CI/e2e/firefox']);

    await write('CI/e2e/chromium', 'passed', 101);
    const body = store.aggregates('CI/e2e')[0]?.body;
    expect(parseAggregateState(body)?.workflowRunId).toBe(101);
    expect(rowKeys(body)).toEqual(['CI/e2e/chromium']);
    expect(body).toContain('### ✅ Stepdeck CI/e2e: passed (1 job)');

    const late = await write('CI/e2e/firefox', 'failed', 100);
    expect(late).toEqual({
      kind: 'skipped',
      reason: 'a later workflow run already owns the aggregate comment',
    });
    expect(store.aggregates('CI/e2e')[0]?.body).toBe(body);
  });

  it('a read-only token: a fallback, not a failure', async () => {
    nock(github).get('/repos/acme/app/issues/7/comments').query(true).reply(200, []);
    nock(github)
      .post('/repos/acme/app/issues/7/comments')
      .reply(403, { message: 'Resource not accessible by integration' });
    expect(await write('CI/e2e/chromium', 'passed')).toEqual({
      kind: 'fallback',
      reason: 'the token cannot comment on this pull request (403)',
    });
  });

  it('names in rows are escaped and the hidden state survives markup in them', () => {
    const markdown = aggregateMarkdown({
      version: 1,
      group: 'CI/e2e',
      workflowRunId: 5,
      rows: {
        'CI/e2e/x': {
          ...row('CI/e2e/x', 'failed', { failedTests: ['a | b <!-- --> c'], failed: 7 }),
          nonce: 'n',
          writtenAt: 1,
        },
      },
    });
    expect(markdown).toContain('| a \\| b \\<\\!-- --\\> c and 6 more |');
    expect(parseAggregateState(markdown)?.rows['CI/e2e/x']?.failedTests).toEqual(['a | b <!-- --> c']);
  });

  it('report() with comment-mode aggregate writes the group comment, not a per-job one', async () => {
    const store = fakeGitHub();
    const fs = await import('node:fs');
    const os = await import('node:os');
    const path = await import('node:path');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-aggregate-'));
    const eventPath = path.join(dir, 'event.json');
    fs.writeFileSync(eventPath, JSON.stringify({ pull_request: { number: 7 } }));
    const inputs = await parseInputs(
      {
        'api-key': apiKey,
        'base-url': 'https://stepdeck.test',
        'project-id': projectId,
        'test-ids': uuid(1),
        browser: 'firefox',
        'comment-mode': 'aggregate',
        'github-token': 'ghs_token',
        summary: 'false',
        annotations: 'false',
      },
      { workflow: 'CI', job: 'e2e' },
    );
    const results: Results = {
      status: 'passed',
      runs: [
        { runId: uuid(10), status: 'completed', url: 'https://stepdeck.test/run/10', runnerError: null },
      ],
      stats: { passed: 2, failed: 0, skipped: 0, total: 2, flaky: 1 },
      durationMs: 1500,
      tests: [],
    };
    await report(
      results,
      inputs,
      {},
      {
        GITHUB_EVENT_NAME: 'pull_request',
        GITHUB_EVENT_PATH: eventPath,
        GITHUB_REPOSITORY: 'acme/app',
        GITHUB_RUN_ID: '9001',
        GITHUB_RUN_ATTEMPT: '2',
      },
    );
    const [comment, ...more] = store.aggregates('CI/e2e');
    expect(more).toEqual([]);
    expect(store.comments.some((item) => item.body.includes('stepdeck-comment:'))).toBe(false);
    expect(comment?.body).toMatch(
      /\| firefox \| ✅ passed \(attempt 2\) \| 2 \| 0 \| 1 \| 0 \| 1\.5 s \| {2}\| \[run\]\(https:\/\/stepdeck\.test\/run\/10\) \|/,
    );
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
