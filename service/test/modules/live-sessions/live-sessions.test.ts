/**
 * Live sessions against real parts: the app on a real port, a real Chromium under the runner's
 * isolation and egress proxy, a loopback site served here, and a real WebSocket client.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { isolationStatus } from '../../../src/runner/isolation.ts';
import { consoleCall, createTestApp, login, type TestApp } from '../../helper.ts';
import { connect } from './stream-client.ts';

/** The live sessions' Chromium processes (their profile is under an `sd-live-` folder): uid and flags. */
function liveChromiums(): Array<{ uid: number; args: string[] }> {
  const out: Array<{ uid: number; args: string[] }> = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (!args.some((arg) => arg.startsWith('--user-data-dir=') && arg.includes('sd-live-'))) continue;
      const uid = Number(/^Uid:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${entry}/status`, 'utf8'))?.[1]);
      out.push({ uid, args });
    } catch {}
  }
  return out;
}

const page = (title: string, body: string) =>
  `<!doctype html><html><head><title>${title}</title></head><body style="margin:0">${body}</body></html>`;

const site = http.createServer((request, response) => {
  response.setHeader('content-type', 'text/html');
  if (request.url === '/next') return response.end(page('Next page', '<h1>Arrived</h1>'));
  response.end(
    page(
      'Home',
      `<button style="position:absolute;left:0;top:0;width:200px;height:50px"><span>Save</span></button>
       <button style="position:absolute;left:300px;top:0;width:200px;height:50px">Save changes</button>
       <a href="/next" style="position:absolute;left:0;top:100px;width:400px;height:100px;display:block">Next</a>`,
    ),
  );
});

/** The HTTP status a refused upgrade answered with. */
function refusedUpgrade(url: string, headers: Record<string, string>, origin?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers, ...(origin ? { origin } : {}) });
    socket.on('unexpected-response', (_request, response) => {
      resolve(response.statusCode ?? 0);
      socket.terminate();
    });
    socket.on('open', () => reject(new Error('the upgrade was accepted')));
    socket.on('error', () => {});
  });
}

describe('live sessions', () => {
  let t: TestApp;
  let siteUrl: string;
  let base: string;
  let wsBase: string;
  let cookie: string;

  beforeAll(async () => {
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    t = await createTestApp({ env: { LIVE_SESSIONS_MAX: '2', LIVE_SESSION_IDLE_SECONDS: '3' } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (t.app.server.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
    wsBase = `ws://127.0.0.1:${port}`;
    cookie = await t.consoleCookie();
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    site.close();
  });

  const start = (who: string, body: object) =>
    consoleCall(t.app, who, {
      method: 'POST',
      url: `/console/v1/projects/${t.bootstrap.projectId}/live-sessions`,
      payload: body,
    });

  it('streams JPEG frames, replays a click that navigates, and picks an element with its locators counted', async () => {
    const started = await start(cookie, { url: siteUrl });
    expect(started.statusCode, started.body).toBe(201);
    const live = started.json().data as { id: string; streamPath: string };

    // Launched as a run's browser is: its own uid in the `uid` mode, the sandbox on, through the proxy.
    const isolation = isolationStatus();
    const browsers = liveChromiums();
    expect(browsers.length).toBeGreaterThan(0);
    for (const browser of browsers) {
      if (isolation.mode === 'uid') {
        expect(browser.uid).toBeGreaterThanOrEqual(isolation.uidRange?.[0] ?? 0);
        expect(browser.uid).toBeLessThanOrEqual(isolation.uidRange?.[1] ?? 0);
      } else expect(browser.uid).toBe(process.getuid?.());
      expect(browser.args.includes('--no-sandbox')).toBe(!isolation.sandbox);
      expect(browser.args.some((arg) => arg.startsWith('--proxy-server=http://127.0.0.1:'))).toBe(true);
    }

    const second = await start(cookie, { url: siteUrl });
    expect(second.statusCode).toBe(429);
    expect(second.json().message).toMatch(/already have a live browser open/);

    const stream = connect(`${wsBase}${live.streamPath}`, cookie, base);
    await stream.opened;
    const frame = await stream.until(() => stream.frames[0], 'a frame');
    expect([...frame.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);

    stream.send({ type: 'pick', x: 50, y: 25 });
    const picked = await stream.until(
      () => stream.events.find((event) => event.type === 'picked'),
      'the picked element',
    );
    const locators = picked.locators as Array<{ locator: string; selector: string; matches: number }>;
    expect(locators[0]).toMatchObject({
      locator: "getByRole('button', { name: 'Save', exact: true })",
      matches: 1,
    });
    expect(picked.element).toMatchObject({ tag: 'button', role: 'button', name: 'Save' });

    stream.send({ type: 'mouse', event: 'move', x: 100, y: 150 });
    stream.send({ type: 'mouse', event: 'down', x: 100, y: 150, button: 'left', clickCount: 1 });
    stream.send({ type: 'mouse', event: 'up', x: 100, y: 150, button: 'left', clickCount: 1 });
    await stream.until(
      () => stream.events.find((event) => event.type === 'url' && event.url === `${siteUrl}/next`),
      'the URL of the next page',
    );
    await stream.until(
      () => stream.events.find((event) => event.type === 'title' && event.title === 'Next page'),
      'the next page title',
    );

    stream.send({ type: 'mouse', event: 'down', x: 5000, y: 10, button: 'left' });
    const outside = await stream.until(
      () => stream.events.find((event) => event.type === 'error'),
      'the refusal of a point outside the viewport',
    );
    expect(outside.message).toMatch(/inside the viewport \(1280×720/);

    stream.send({ type: 'navigate', url: 'http://169.254.169.254/latest/meta-data/' });
    await stream.until(
      () =>
        stream.events.find(
          (event) =>
            event.type === 'error' && String(event.message).includes("blocked by the runner's egress rules"),
        ),
      'the refusal of the metadata address',
    );

    const closed = new Promise<number>((resolve) => stream.socket.once('close', (code) => resolve(code)));
    const ended = await consoleCall(t.app, cookie, {
      method: 'DELETE',
      url: `/console/v1/projects/${t.bootstrap.projectId}/live-sessions/${live.id}`,
    });
    expect(ended.statusCode).toBe(200);
    expect(await closed).toBe(1000);
  }, 120_000);

  it('is reached by no other user, no other site and no other organization', async () => {
    const started = await start(cookie, { url: siteUrl });
    expect(started.statusCode, started.body).toBe(201);
    const live = started.json().data as { id: string; streamPath: string };
    const url = `${wsBase}${live.streamPath}`;

    const org = await consoleCall(t.app, cookie, {
      method: 'POST',
      url: '/console/v1/organizations',
      payload: { name: 'Others', ownerEmail: 'owner@others.example', ownerPassword: 'others-password' },
    });
    expect(org.statusCode, org.body).toBe(201);
    const other = await login(t.app, 'owner@others.example', 'others-password');
    expect(await refusedUpgrade(url, { cookie: other }, base)).toBe(404);
    // Nor through their own project's path.
    const theirs = `${wsBase}/console/v1/projects/${org.json().data.projectId}/live-sessions/${live.id}/stream`;
    expect(await refusedUpgrade(theirs, { cookie: other }, base)).toBe(404);
    expect(await refusedUpgrade(url, { cookie }, 'https://evil.example')).toBe(403);
    expect(await refusedUpgrade(url, { cookie })).toBe(403);
    expect(await refusedUpgrade(url, {}, base)).toBe(401);

    // Signing out ends it.
    const stream = connect(url, cookie, base);
    await stream.opened;
    const closed = new Promise<number>((resolve) => stream.socket.once('close', (code) => resolve(code)));
    const signedOut = await consoleCall(t.app, cookie, { method: 'DELETE', url: '/console/v1/session' });
    expect(signedOut.statusCode).toBe(200);
    expect(await closed).toBe(1000);
    expect(stream.events.at(-1)).toEqual({ type: 'ended', reason: 'Session ended: you signed out' });
    cookie = await login(t.app, t.bootstrap.adminEmail, t.bootstrap.adminPassword);
  }, 120_000);

  it('refuses file:, chrome: and metadata URLs and the service itself as a run would', async () => {
    for (const [url, message] of [
      ['file:///etc/passwd', '"file:" is not allowed'],
      ['chrome://settings', '"chrome:" is not allowed'],
      [
        'http://169.254.169.254/latest/meta-data/',
        "blocked by the runner's egress rules: 169.254.169.254 is in 169.254.0.0/16",
      ],
      [base, "the Stepdeck service's own HTTP port"],
    ]) {
      const refused = await start(cookie, { url });
      expect(refused.statusCode, url).toBe(400);
      expect(refused.json().message).toContain(message);
    }
  });

  it('ends a session idle for its idle time', async () => {
    const started = await start(cookie, { url: siteUrl });
    expect(started.statusCode, started.body).toBe(201);
    const live = started.json().data as { streamPath: string };
    const stream = connect(`${wsBase}${live.streamPath}`, cookie, base);
    await stream.opened;
    const ended = await stream.until(
      () => stream.events.find((event) => event.type === 'ended'),
      'the idle end',
      15_000,
    );
    expect(ended.reason).toBe('Session ended after 3 seconds idle');
    // The user may start again.
    const again = await start(cookie, { url: siteUrl });
    expect(again.statusCode, again.body).toBe(201);
  }, 60_000);
});
