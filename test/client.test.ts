import http from 'node:http';
import type { AddressInfo } from 'node:net';
import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, retryAfterMs, StepdeckClient } from '../src/client.ts';
import { trigger } from '../src/trigger.ts';
import { freePort } from './e2e/harness.ts';
import { apiKey, base, projectId, runDetail, uuid } from './fixtures.ts';

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

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

describe('trigger POSTs are not resent blindly', () => {
  const created = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString();
  const latest = (testId: string, run: { id: string; status: string; createdAt: string } | null) =>
    service()
      .get('/v1/test-runs/latest')
      .query({ testId })
      .reply(200, { data: run && { name: 'r', ...run } });

  it('after a 504 on a bulk trigger, takes the run created since instead of triggering again', async () => {
    service()
      .post('/v1/tests/remote-run', { testIds: [uuid(1), uuid(2)] })
      .reply(504, '<html>Gateway Timeout</html>');
    latest(uuid(1), { id: uuid(10), status: 'pending', createdAt: created(-500) });
    const client = newClient();
    const run = await client.triggerBulk({ testIds: [uuid(1), uuid(2)] });
    expect(run).toEqual({ runId: uuid(10), status: 'pending' });
    expect(client.requests).toBe(2);
    expect(logs.join('\n')).toContain(`run ${uuid(10)} (pending) was created since`);
  });

  it('after a 502 with no run created since, triggers again (an older run is not this one)', async () => {
    service()
      .post(`/v1/tests/${uuid(1)}/remote-run`)
      .reply(502, 'bad gateway')
      .post(`/v1/tests/${uuid(1)}/remote-run`)
      .reply(200, { data: { runId: uuid(11), status: 'pending' } });
    latest(uuid(1), { id: uuid(9), status: 'completed', createdAt: created(-3_600_000) });
    const run = await newClient().triggerTest(uuid(1));
    expect(run).toEqual({ runId: uuid(11), status: 'pending' });
    expect(sleeps).toEqual([1000]);
    expect(logs.join('\n')).toContain('no run was started: triggering again in 1000 ms');
  });

  // nock's replyWithError does not reach undici as a socket error: real sockets on loopback.
  it('a connection reset after sending is ambiguous too: looks up before resending', async () => {
    nock.enableNetConnect('127.0.0.1');
    const seen: string[] = [];
    const server = http.createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      if (req.method === 'POST') return req.socket.destroy();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ data: { id: uuid(12), name: 'r', status: 'running', createdAt: created(-200) } }),
      );
    });
    const url = await listen(server);
    try {
      const client = new StepdeckClient({ baseUrl: url, apiKey, projectId, sleep: async () => {} });
      expect(await client.triggerBulk({ tagId: uuid(5) })).toEqual({ runId: uuid(12), status: 'running' });
      expect(seen).toEqual(['POST /v1/tests/remote-run', `GET /v1/test-runs/latest?testId=${uuid(5)}`]);
    } finally {
      server.close();
      nock.disableNetConnect();
    }
  });

  it('a refused connection never reached the service: resent as is, no lookup', async () => {
    nock.enableNetConnect('127.0.0.1');
    const port = await freePort();
    const seen: string[] = [];
    const server = http.createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: { runId: uuid(13), status: 'pending' } }));
    });
    try {
      const client = new StepdeckClient({
        baseUrl: `http://127.0.0.1:${port}`,
        apiKey,
        projectId,
        log: (line) => logs.push(line),
        // The service comes up during the backoff.
        sleep: (ms) => {
          sleeps.push(ms);
          return new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
        },
      });
      expect(await client.triggerTest(uuid(1))).toEqual({ runId: uuid(13), status: 'pending' });
      expect(sleeps).toEqual([1000]);
      expect(seen).toEqual([`POST /v1/tests/${uuid(1)}/remote-run`]);
      expect(logs.join()).toContain('ECONNREFUSED');
    } finally {
      server.close();
      nock.disableNetConnect();
    }
  });

  it('when the lookup fails too, stops and says a run may have started', async () => {
    service()
      .post(`/v1/tests/${uuid(1)}/remote-run`)
      .reply(504, 'gateway timeout');
    service()
      .get('/v1/test-runs/latest')
      .query({ testId: uuid(1) })
      .reply(401, { message: 'Invalid API key' });
    await expect(newClient().triggerTest(uuid(1))).rejects.toThrow(
      /failed with 504: gateway timeout; a run may have started, and looking it up failed too \(.*401: Invalid API key\): check the project's runs before triggering again/,
    );
  });
});
