import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleCall, createTestApp, type TestApp } from '../../helper.ts';
import { allArtifactFiles } from './artifacts.ts';
import { createTest, setCap, waitForStatus } from './helpers.ts';

/**
 * Redaction of every encoding, end to end: a secret with `!(`, `&` and `Ü` is typed into a form on a page
 * served without a charset (so Chromium posts it Latin-1 form-encoded, `Ü` as `%DC`) and submitted;
 * no artifact, unpacked to the traces' resources and the report's embedded zips, holds it in any
 * encoding a browser or HTTP client produces.
 */
describe('run artifacts: a form-posted secret leaks in no encoding', () => {
  let t: TestApp;
  let server: http.Server;
  let base = '';
  const posted: string[] = [];
  const secret = 'Summer2024!(x)&Ü';
  const latin1Form = [...Buffer.from(secret, 'latin1')]
    .map((byte) =>
      /[A-Za-z0-9*._-]/.test(String.fromCharCode(byte))
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');
  const forms: Array<[string, string]> = [
    ['raw', secret],
    ['JSON-escaped', JSON.stringify(secret).slice(1, -1)],
    ['JSON \\u-escaped', 'Summer2024!(x)&\\u00dc'],
    ['encodeURIComponent', encodeURIComponent(secret)],
    ['form-urlencoded', new URLSearchParams({ v: secret }).toString().slice(2)],
    ['HTML-escaped', 'Summer2024!(x)&amp;Ü'],
    ['HTML entity', 'Summer2024!(x)&amp;&Uuml;'],
    ['base64 utf8', Buffer.from(secret).toString('base64')],
    ['base64 latin1', Buffer.from(secret, 'latin1').toString('base64')],
    ['Latin-1 percent-encoding', latin1Form],
    ['Latin-1 bytes', Buffer.from(secret, 'latin1').toString('latin1')],
  ];

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      if (request.url === '/form') {
        // No charset on purpose: the form is submitted in windows-1252.
        response.writeHead(200, { 'content-type': 'text/html' });
        response.end(
          '<html><body><form method="post" action="/submit"><input id="pw" name="pw">' +
            '<button id="go" type="submit">go</button></form></body></html>',
        );
        return;
      }
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        posted.push(Buffer.concat(chunks).toString('latin1'));
        response.writeHead(200, { 'content-type': 'text/html' });
        response.end('<html><body><p id="done">thanks</p></body></html>');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    t = await createTestApp({ background: true, env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    const response = await consoleCall(t.app, await t.consoleCookie(), {
      method: 'POST',
      url: `/console/v1/projects/${t.bootstrap.projectId}/secrets`,
      payload: { name: 'PW', value: secret },
    });
    expect(response.statusCode).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('finds none of raw, JSON, URL, form, HTML, base64 or Latin-1 forms in any artifact', async () => {
    const testId = await createTest(t, {
      name: 'posts a secret',
      steps: [
        { name: 'open', action: { name: 'goto', url: '/form' } },
        { name: 'type', action: { name: 'fill', selector: '#pw', value: '{{secrets.PW}}' } },
        { name: 'submit', action: { name: 'click', selector: '#go' } },
        { name: 'landed', action: { name: 'assertText', selector: '#done', value: 'thanks' } },
      ],
    });
    const response = await t.api({
      method: 'POST',
      url: `/v1/tests/${testId}/remote-run`,
      payload: { config: { use: { baseURL: base, trace: 'on', screenshot: 'on' } } },
    });
    expect(response.statusCode).toBe(200);
    const runId = response.json().data.runId as string;
    const run = await waitForStatus(t, runId, ['completed', 'failed']);
    expect(run.runnerError ?? null).toBeNull();
    expect(run.status).toBe('completed');
    // The browser really sent it Latin-1 form-encoded.
    expect(posted).toContain(`pw=${latin1Form.replaceAll('%20', '+')}`);

    expect(await leaksIn(runId)).toEqual([]);
  }, 180_000);

  it('finds none of them in a run split over several runner slots (blob reports merged)', async () => {
    await setCap(t, 3);
    const testIds: string[] = [];
    for (const n of [1, 2, 3, 4])
      testIds.push(
        await createTest(t, {
          name: `posts a secret ${n}`,
          steps: [
            { name: 'open', action: { name: 'goto', url: '/form' } },
            { name: 'type', action: { name: 'fill', selector: '#pw', value: '{{secrets.PW}}' } },
            { name: 'submit', action: { name: 'click', selector: '#go' } },
            { name: 'landed', action: { name: 'assertText', selector: '#done', value: 'thanks' } },
            // Enough expected work for the planner to split the run.
            { name: 'pause', action: { name: 'wait', ms: 4000 } },
          ],
        }),
      );
    const response = await t.api({
      method: 'POST',
      url: '/v1/tests/remote-run',
      payload: { testIds, config: { use: { baseURL: base, trace: 'on', screenshot: 'on' } } },
    });
    expect(response.statusCode).toBe(200);
    const runId = response.json().data.runId as string;
    const run = await waitForStatus(t, runId, ['completed', 'failed'], 240_000);
    expect(run.status).toBe('completed');
    expect((run.shards as unknown[] | undefined)?.length ?? 0).toBeGreaterThanOrEqual(2);
    expect(await leaksIn(runId)).toEqual([]);
  }, 300_000);

  async function leaksIn(runId: string): Promise<string[]> {
    const files = await allArtifactFiles(t, runId);
    expect(files.some((file) => /trace\.zip:resources\//.test(file.name))).toBe(true);
    expect(files.some((file) => file.name.includes('index.html:embedded.zip:'))).toBe(true);
    const leaks: string[] = [];
    for (const file of files) {
      const text = file.data.toString('latin1');
      for (const [encoding, form] of forms) {
        const needles = new Set([
          form,
          Buffer.from(form).toString('latin1'),
          Buffer.from(form, 'latin1').toString('latin1'),
        ]);
        for (const needle of needles) if (text.includes(needle)) leaks.push(`${encoding} in ${file.name}`);
      }
    }
    return leaks;
  }
});
