import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, retryAfterMs, StepdeckClient } from '../src/client.ts';
import { trigger } from '../src/trigger.ts';
import { apiKey, base, projectId, runDetail, uuid } from './fixtures.ts';

const sleeps: number[] = [];
const logs: string[] = [];
const newClient = () =>
  new StepdeckClient({
    baseUrl: base,
    apiKey,
    projectId,
    branchId: uuid(2),
    log: (line) => logs.push(line),
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  });
const service = () =>
  nock(base, { reqheaders: { 'x-api-key': apiKey, 'x-project-id': projectId, 'x-branch-id': uuid(2) } });

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  expect(nock.pendingMocks()).toEqual([]);
  nock.cleanAll();
  sleeps.length = 0;
  logs.length = 0;
});

describe('client', () => {
  it('honours Retry-After on 429, then succeeds', async () => {
    service()
      .post(`/v1/tests/${uuid(1)}/remote-run`)
      .reply(429, { error: 'Too many requests' }, { 'retry-after': '7' })
      .post(`/v1/tests/${uuid(1)}/remote-run`, { config: { retries: 1 } })
      .reply(200, { data: { runId: uuid(10), status: 'pending' } });
    const client = newClient();
    const run = await client.triggerTest(uuid(1), { retries: 1 });
    expect(run).toEqual({ runId: uuid(10), status: 'pending' });
    expect(sleeps).toEqual([7000]);
    expect(client.requests).toBe(2);
  });

  it('parses Retry-After as seconds or an HTTP date', () => {
    expect(retryAfterMs('3')).toBe(3000);
    expect(retryAfterMs(new Date(60_000).toUTCString(), 0)).toBe(60_000);
    expect(retryAfterMs(undefined)).toBe(5000);
  });

  it('retries 5xx with exponential backoff', async () => {
    service()
      .get(`/v1/test-runs/${uuid(10)}`)
      .reply(502, 'bad gateway')
      .get(`/v1/test-runs/${uuid(10)}`)
      .reply(503, { message: 'maintenance' })
      .get(`/v1/test-runs/${uuid(10)}`)
      .reply(200, runDetail(uuid(10), 'running'));
    const run = await newClient().getRun(uuid(10));
    expect(run.status).toBe('running');
    expect(sleeps).toEqual([1000, 2000]);
    expect(logs.join('\n')).toMatch(
      /502 bad gateway, retrying in 1000 ms[\s\S]*503 maintenance, retrying in 2000 ms/,
    );
  });

  it('retries network errors, then fails naming the request', async () => {
    const client = new StepdeckClient({
      baseUrl: 'http://unreachable.test',
      apiKey,
      projectId,
      log: (line) => logs.push(line),
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    });
    await expect(client.getRun(uuid(10))).rejects.toThrow(/GET \/v1\/test-runs\/\S+ failed after 5 attempts/);
    expect(sleeps).toEqual([1000, 2000, 4000, 8000]);
    expect(client.requests).toBe(5);
  });

  it('gives up on 5xx after the last attempt with the service message', async () => {
    service()
      .get(`/v1/test-runs/${uuid(10)}`)
      .times(5)
      .reply(500, { message: 'boom' });
    await expect(newClient().getRun(uuid(10))).rejects.toThrow(/failed with 500: boom/);
    expect(sleeps).toHaveLength(4);
  });

  it('fails at once on other 4xx with the service message', async () => {
    service().post('/v1/tests/remote-run').reply(400, { message: 'No executable tests' });
    const error = await newClient()
      .triggerBulk({ tagId: uuid(5) })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(400);
    expect((error as Error).message).toBe('POST /v1/tests/remote-run failed with 400: No executable tests');
    expect(sleeps).toEqual([]);
  });

  it('never puts the API key in an error or a log line, even when the service echoes it', async () => {
    service()
      .get(`/v1/test-runs/${uuid(10)}`)
      .reply(500, { message: `bad key ${apiKey}` })
      .get(`/v1/test-runs/${uuid(10)}`)
      .reply(401, { message: `Invalid API key ${apiKey}` });
    const error = (await newClient()
      .getRun(uuid(10))
      .catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/401: Invalid API key \*\*\*/);
    expect(`${error.message}${error.stack}${logs.join()}`).not.toContain(apiKey);
  });

  it('rejects a response that does not match the contract', async () => {
    service()
      .get(`/v1/test-runs/${uuid(10)}`)
      .reply(200, { data: { id: uuid(10) } });
    await expect(newClient().getRun(uuid(10))).rejects.toThrow();
  });
});

describe('trigger', () => {
  it('attaches to the active run when a single-test trigger gets 409', async () => {
    service()
      .post(`/v1/tests/${uuid(1)}/remote-run`)
      .reply(409, { message: 'Test already has an active run' })
      .get('/v1/test-runs/latest')
      .query({ testId: uuid(1) })
      .reply(200, {
        data: { id: uuid(10), name: 'r', status: 'running', createdAt: '2025-01-01T00:00:00Z' },
      });
    const result = await trigger(
      newClient(),
      { testIds: [uuid(1)], tagId: undefined, config: undefined },
      (line) => logs.push(line),
    );
    expect(result).toEqual({ runs: [{ runId: uuid(10), status: 'running' }], attached: true });
    expect(logs.join()).toContain(`attaching to run ${uuid(10)}`);
  });

  it('splits more than 100 test ids into runs of at most 100', async () => {
    const ids = Array.from({ length: 230 }, (_, i) => uuid(1000 + i));
    const bodies: string[][] = [];
    service()
      .post('/v1/tests/remote-run', (body: { testIds: string[] }) => {
        bodies.push(body.testIds);
        return true;
      })
      .times(3)
      .reply(200, () => ({
        data: { runId: uuid(20 + bodies.length), status: 'pending', totalTests: 1, message: 'ok' },
      }));
    const result = await trigger(
      newClient(),
      { testIds: ids, tagId: undefined, config: undefined },
      () => {},
    );
    expect(bodies.map((b) => b.length)).toEqual([100, 100, 30]);
    expect(bodies.flat()).toEqual(ids);
    expect(result.runs.map((run) => run.runId)).toEqual([uuid(21), uuid(22), uuid(23)]);
  });

  it('expands a tag beyond the cap into its active leaf tests and splits them', async () => {
    const leaves = Array.from({ length: 150 }, (_, i) => ({
      id: uuid(2000 + i),
      directory: false,
      status: 'active',
    }));
    const bodies: string[][] = [];
    service()
      .post('/v1/tests/remote-run', { tagId: uuid(5) })
      .reply(400, { message: 'More than 100 active tests' })
      .get('/v1/tests')
      .query({ tagIds: uuid(5), status: 'active', limit: '500', page: '0' })
      .reply(200, {
        children: leaves,
        pagination: { page: 0, limit: 500, total: 150, totalPages: 1, hasMore: false },
      })
      .post('/v1/tests/remote-run', (body: { testIds: string[] }) => {
        bodies.push(body.testIds);
        return true;
      })
      .times(2)
      .reply(200, () => ({
        data: { runId: uuid(30 + bodies.length), status: 'pending', totalTests: 1, message: '' },
      }));
    const result = await trigger(newClient(), { testIds: [], tagId: uuid(5), config: undefined }, () => {});
    expect(bodies.map((b) => b.length)).toEqual([100, 50]);
    expect(result.runs).toHaveLength(2);
  });
});
