import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admitWrites, writeAdmissionOf, writeAdmissionRules } from '../../src/plugins/write-admission.ts';
import { createTestApp, multipart, type TestApp } from '../helper.ts';

/**
 * Reads under writes on the embedded SQLite: changing requests wait in a FIFO after
 * authentication and before their body is read, a few admitted at once (`writeAdmissionRules`,
 * docs/concurrency.md). Asserted by counts and order of events, not by timing.
 */

const testForm = (name: string) =>
  multipart({
    testData: JSON.stringify({
      name,
      steps: [1, 2, 3].map((index) => ({
        name: `step ${index}`,
        action: { name: 'goto', url: `https://example.com/${index}` },
      })),
    }),
  });

/** Resolves once `condition` holds, checking on every turn of the event loop. */
async function until(condition: () => boolean, what: string) {
  const deadline = Date.now() + 60_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`never: ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('write admission (SQLite, the real app on a loopback port)', () => {
  let t: TestApp;
  let baseUrl: string;

  beforeAll(async () => {
    t = await createTestApp({ database: 'sqlite', env: { RATE_LIMIT_PER_MINUTE: '1000000' } });
    baseUrl = await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await t?.close();
  });

  const admission = () => {
    const found = writeAdmissionOf(t.ctx.db);
    if (!found) throw new Error('no write admission on the SQLite app');
    return found;
  };

  const create = async (name: string) => {
    const form = await testForm(name);
    return fetch(`${baseUrl}/v1/tests`, {
      method: 'POST',
      headers: { ...t.headers, ...form.headers },
      body: new Uint8Array(form.payload),
    });
  };
  const list = () => fetch(`${baseUrl}/v1/tests?limit=50`, { headers: t.headers });

  /** A create whose client sends its headers and half its body, then waits for `finish`. */
  const stalledUpload = async (name: string) => {
    const form = await testForm(name);
    const socket = net.connect(Number(new URL(baseUrl).port), '127.0.0.1');
    const answer = new Promise<string>((resolve, reject) => {
      let received = '';
      socket.on('data', (chunk) => {
        received += chunk.toString();
      });
      socket.on('close', () => resolve(received));
      socket.on('error', reject);
    });
    const headers = {
      ...t.headers,
      ...form.headers,
      'content-length': String(form.payload.length),
      connection: 'close',
    };
    socket.write(
      `POST /v1/tests HTTP/1.1\r\nhost: 127.0.0.1\r\n${Object.entries(headers)
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('')}\r\n`,
    );
    const half = Math.floor(form.payload.length / 2);
    socket.write(form.payload.subarray(0, half));
    return {
      // Not `end`: a client's FIN would make Node's server abort the request (no half-open).
      // The server closes the connection after its answer (`connection: close`).
      finish: () => socket.write(form.payload.subarray(half)),
      abort: () => socket.destroy(),
      answer,
    };
  };

  it('a read is answered while 50 writers wait for their turn; at most `atOnce` are admitted; every create lands', async () => {
    const rules = writeAdmissionRules.sqlite;
    if (!rules) throw new Error('SQLite has write admission');
    // The product's places, with a lease longer than the test: the two uploads below hold
    // every place until they finish, so the 50 writers are sure to wait.
    admitWrites(t.ctx.db, { ...rules, leaseMs: 10 * 60_000 });
    try {
      let mostAdmitted = 0;
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          mostAdmitted = Math.max(mostAdmitted, admission().counts.admitted);
          await new Promise((resolve) => setImmediate(resolve));
        }
      })();
      const uploads = await Promise.all(
        Array.from({ length: rules.atOnce }, (_, index) => stalledUpload(`upload ${index}`)),
      );
      await until(() => admission().counts.admitted === rules.atOnce, 'the uploads admitted');
      const creates = Array.from({ length: 50 }, (_, index) => create(`crowd ${index}`));
      await until(() => admission().counts.waiting === 50, 'the 50 writers waiting for a place');

      const read = await list();
      expect(read.status).toBe(200);
      expect(admission().counts).toEqual({ admitted: rules.atOnce, waiting: 50 });

      for (const upload of uploads) upload.finish();
      const responses = await Promise.all(creates);
      for (const upload of uploads) expect(await upload.answer).toMatch(/^HTTP\/1\.1 200 /);
      sampling = false;
      await sampler;

      expect(mostAdmitted).toBe(rules.atOnce);
      // Nothing lost: every create answered 200 and is listed.
      expect(responses.map((response) => response.status)).toEqual(Array(50).fill(200));
      const ids = await Promise.all(
        responses.map(async (response) => (await response.json()).data.id as string),
      );
      const listed = await fetch(`${baseUrl}/v1/tests?limit=100000`, { headers: t.headers });
      const listedIds = new Set(
        ((await listed.json()).children as Array<{ id: string }>).map((child) => child.id),
      );
      expect(ids.filter((id) => !listedIds.has(id))).toEqual([]);
      expect(admission().counts).toEqual({ admitted: 0, waiting: 0 });
    } finally {
      admitWrites(t.ctx.db, writeAdmissionRules.sqlite);
    }
  }, 120_000);

  it('slow uploads holding every place block neither reads nor, after their lease, other writes', async () => {
    admitWrites(t.ctx.db, { atOnce: 1, leaseMs: 300 });
    try {
      const upload = await stalledUpload('slow upload');
      await until(() => admission().counts.admitted === 1, 'the upload admitted');

      expect((await list()).status).toBe(200);
      // The upload still sends nothing, and holds the only place until its lease ends.
      const other = await create('while the upload stalls');
      expect(other.status).toBe(200);

      upload.finish();
      expect(await upload.answer).toMatch(/^HTTP\/1\.1 200 /);
      const listed = await (await fetch(`${baseUrl}/v1/tests?limit=100000`, { headers: t.headers })).json();
      const names = (listed.children as Array<{ name: string }>).map((child) => child.name);
      expect(names).toEqual(expect.arrayContaining(['slow upload', 'while the upload stalls']));
    } finally {
      admitWrites(t.ctx.db, writeAdmissionRules.sqlite);
    }
  }, 60_000);

  it('a client that goes away mid-upload gives its place back at once', async () => {
    // A lease far longer than the test: only the abort can free the place.
    admitWrites(t.ctx.db, { atOnce: 1, leaseMs: 10 * 60_000 });
    try {
      const upload = await stalledUpload('abandoned');
      await until(() => admission().counts.admitted === 1, 'the upload admitted');
      upload.abort();
      await upload.answer.catch(() => undefined);

      const next = await create('after the abandoned upload');
      expect(next.status).toBe(200);
      expect(admission().counts).toEqual({ admitted: 0, waiting: 0 });
    } finally {
      admitWrites(t.ctx.db, writeAdmissionRules.sqlite);
    }
  }, 60_000);

  it('reads and refused requests never wait for a place', async () => {
    // The only place held by a stalled upload for longer than the test: whatever waits for a
    // place would not be answered.
    admitWrites(t.ctx.db, { atOnce: 1, leaseMs: 10 * 60_000 });
    try {
      const upload = await stalledUpload('holding the place');
      await until(() => admission().counts.admitted === 1, 'the upload admitted');
      expect((await list()).status).toBe(200);
      const refused = await fetch(`${baseUrl}/v1/tests`, {
        method: 'POST',
        headers: { 'x-api-key': 'nope' },
      });
      expect(refused.status).toBe(401);
      expect(admission().counts).toEqual({ admitted: 1, waiting: 0 });
      upload.finish();
      expect(await upload.answer).toMatch(/^HTTP\/1\.1 200 /);
    } finally {
      admitWrites(t.ctx.db, writeAdmissionRules.sqlite);
    }
  }, 60_000);
});

describe('write admission (PostgreSQL)', () => {
  it('is off: transactions there wait on the server, and the write turns cap them', async () => {
    const t = await createTestApp({ database: 'postgres' });
    try {
      expect(writeAdmissionRules.postgres).toBeUndefined();
      expect(writeAdmissionOf(t.ctx.db)).toBeUndefined();
    } finally {
      await t.close();
    }
  }, 60_000);
});
