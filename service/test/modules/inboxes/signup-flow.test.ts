import http from 'node:http';
import type { AddressInfo } from 'node:net';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleCall, createTestApp, freePort, type TestApp } from '../../helper.ts';
import { createTest, waitForStatus } from '../runs/helpers.ts';

/**
 * The e-mail confirmation flow a stored test drives, end to end on loopback: a sign-up page whose form POST makes
 * its server mail a confirmation link through the service's own SMTP listener; a stored test
 * signs up, waits for the mail in a console-created inbox, follows the link and checks the
 * confirmation page. Real app, real runner (Playwright + Chromium), real SMTP, real HTTP.
 */

interface SignupSite {
  url: string;
  /** Browser hits of `/confirm`, by token. */
  confirmations: Map<string, number>;
  /** Tokens the server mailed. */
  mailed: string[];
  close(): Promise<void>;
}

const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

async function readForm(request: http.IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/**
 * `/signup` (form) → POST `/signup` mails `/confirm?token=…` to the entered address through
 * SMTP on `smtpPort`; `/silent-signup` is the same page whose POST never sends anything.
 */
async function startSignupSite(smtpPort: number): Promise<SignupSite> {
  const confirmations = new Map<string, number>();
  const mailed: string[] = [];
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port: smtpPort,
    secure: false,
    ignoreTLS: true,
  });
  let base = '';
  const page = (title: string, body: string) =>
    `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;
  const form = (action: string) =>
    page(
      'Sign up',
      `<form method="post" action="${action}">
<label>Email <input id="email" name="email" type="email"></label>
<button id="signup" type="submit">Sign up</button></form>`,
    );
  const server = http.createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? '/', base);
      response.setHeader('content-type', 'text/html; charset=utf-8');
      if (request.method === 'GET' && (url.pathname === '/signup' || url.pathname === '/silent-signup')) {
        response.end(form(url.pathname));
        return;
      }
      if (request.method === 'POST' && (url.pathname === '/signup' || url.pathname === '/silent-signup')) {
        const email = (await readForm(request)).get('email') ?? '';
        if (url.pathname === '/signup') {
          const token = `tok-${mailed.length + 1}-${Math.random().toString(36).slice(2, 10)}`;
          const link = `${base}/confirm?token=${token}`;
          await transport.sendMail({
            from: 'Signup App <no-reply@signup.example>',
            to: email,
            subject: 'Confirm your account',
            text: `Welcome! Confirm your account: ${link}`,
            html: `<p>Welcome!</p><p><a href="https://signup.example/help">Help</a></p><p><a href="${link}">Confirm your account</a></p>`,
          });
          mailed.push(token);
        }
        response.end(page('Check your inbox', `<p id="status">Check your inbox, ${escapeHtml(email)}</p>`));
        return;
      }
      if (request.method === 'GET' && url.pathname === '/confirm') {
        const token = url.searchParams.get('token') ?? '';
        confirmations.set(token, (confirmations.get(token) ?? 0) + 1);
        const known = mailed.includes(token);
        response.end(
          page('Confirmed', `<h1 id="result">${known ? 'Account confirmed' : 'Unknown token'}</h1>`),
        );
        return;
      }
      response.statusCode = 404;
      response.end(page('Not found', 'not found'));
    })().catch((error: unknown) => {
      response.statusCode = 500;
      response.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    confirmations,
    mailed,
    close: () =>
      new Promise((resolve) => {
        transport.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('sign-up flow: a browser run follows a link mailed through the service SMTP', () => {
  let t: TestApp;
  let site: SignupSite;
  let inbox: { id: string; address: string };

  beforeAll(async () => {
    const port = await freePort();
    t = await createTestApp({
      background: true,
      env: { PUBLIC_URL: `http://127.0.0.1:${port}`, RATE_LIMIT_PER_MINUTE: '100000' },
    });
    // The runner's email steps poll the inbox API over HTTP, so the app really listens.
    await t.app.listen({ port, host: '127.0.0.1' });
    const smtpPort = t.app.inboxes.smtpPort;
    expect(smtpPort).toBeGreaterThan(0);
    site = await startSignupSite(smtpPort as number);
    const created = await consoleCall(t.app, await t.consoleCookie(), {
      method: 'POST',
      url: '/console/v1/email-inboxes',
      payload: { name: 'Sign-up flow' },
    });
    expect(created.statusCode, created.body).toBe(201);
    inbox = created.json().data;
  });
  afterAll(async () => {
    await t?.close();
    await site?.close();
  });

  const signupTest = (name: string, path: string, timeoutMs: number) => ({
    name,
    config: { use: { baseURL: site.url, actionTimeout: 5_000 } },
    steps: [
      { name: 'open', action: { name: 'goto', url: path } },
      { name: 'email', action: { name: 'fill', selector: '#email', value: inbox.address } },
      { name: 'sign up', action: { name: 'click', selector: '#signup' } },
      {
        name: 'mail',
        action: {
          name: 'waitForEmail',
          inbox: inbox.address,
          subjectContains: 'confirm your',
          timeoutMs,
          variable: 'mail',
        },
      },
      { name: 'follow', action: { name: 'gotoEmailLink', variable: 'mail', contains: '/confirm' } },
      { name: 'confirmed', action: { name: 'assertText', selector: '#result', value: 'Account confirmed' } },
    ],
  });

  const trigger = async (testId: string) => {
    const response = await t.api({ method: 'POST', url: `/v1/tests/${testId}/remote-run` });
    expect(response.statusCode, response.body).toBe(200);
    return response.json().data.runId as string;
  };

  const runKeysOf = (runId: string) =>
    t.ctx.db.selectFrom('apiKeys').select('id').where('name', '=', `stepdeck-run:${runId}`).execute();

  it('signs up, waits for the confirmation mail, follows its link and sees the confirmation page', async () => {
    const testId = await createTest(t, signupTest('sign-up confirms by email', '/signup', 30_000));
    const runId = await trigger(testId);
    const run = await waitForStatus(t, runId, ['completed', 'failed', 'cancelled'], 120_000);
    expect(run.status, JSON.stringify(run.report)).toBe('completed');
    expect(run.stats).toEqual({ passed: 1, failed: 0, skipped: 0, total: 1 });

    // One mail was sent, and the browser opened its confirm link exactly once.
    expect(site.mailed).toHaveLength(1);
    const token = site.mailed[0] as string;
    expect([...site.confirmations.entries()]).toEqual([[token, 1]]);

    // The mail really went through the service's SMTP into the console-created inbox.
    const messages = await t.app.inject({
      method: 'GET',
      url: `/v1/email-inboxes/${inbox.id}/messages`,
      headers: { 'x-api-key': t.bootstrap.apiKey },
    });
    expect(messages.statusCode).toBe(200);
    const [message] = messages.json().data;
    expect(message).toMatchObject({
      subject: 'Confirm your account',
      fromAddress: expect.stringContaining('no-reply@signup.example'),
      urls: ['https://signup.example/help', `${site.url}/confirm?token=${token}`],
    });

    // The run's internal inbox key is gone once the run ended, and was never an artifact.
    expect(await runKeysOf(runId)).toEqual([]);
    const log = String(await t.ctx.blobs.get(`runs/${runId}/test-run.log`));
    expect(log).not.toMatch(/sd_[0-9a-f]{48}/);
    const report = String(await t.ctx.blobs.get(`runs/${runId}/test-results.json`));
    expect(report).not.toMatch(/sd_[0-9a-f]{48}/);
  }, 150_000);

  it('fails the run, naming the inbox and the timeout, when the page never sends the mail', async () => {
    const testId = await createTest(t, signupTest('sign-up without mail', '/silent-signup', 2_500));
    const before = site.mailed.length;
    const confirmsBefore = [...site.confirmations.values()].reduce((sum, hits) => sum + hits, 0);
    const runId = await trigger(testId);
    const run = await waitForStatus(t, runId, ['completed', 'failed', 'cancelled'], 120_000);
    expect(run.status).toBe('failed');
    expect(run.stats).toEqual({ passed: 0, failed: 1, skipped: 0, total: 1 });
    const report = run.report as {
      runTypeInfo: { testResults: Array<{ status: string; errorMessage: string | null }> };
    };
    const [result] = report.runTypeInfo.testResults;
    expect(result?.status).toBe('failed');
    expect(result?.errorMessage).toContain(
      `waitForEmail: no message with subject containing "confirm your" arrived in inbox "${inbox.address}" within 2500 ms`,
    );
    // Nothing was mailed and no confirm page was opened.
    expect(site.mailed.length).toBe(before);
    expect([...site.confirmations.values()].reduce((sum, hits) => sum + hits, 0)).toBe(confirmsBefore);
    expect(await runKeysOf(runId)).toEqual([]);
  }, 150_000);
});
