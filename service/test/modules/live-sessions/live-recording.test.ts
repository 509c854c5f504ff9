/**
 * Recording in a live session against real parts: the app on a real port, a real Chromium with
 * Playwright's recorder, a loopback login form, and a real WebSocket client that acts only as
 * the console does, by mouse and keyboard messages at page coordinates.
 */
import http from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { mapRecording, parseRecording, type RecordedStep } from '@stepdeck/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleCall, createTestApp, type TestApp } from '../../helper.ts';
import { connect, type Event } from './stream-client.ts';

// Fields at fixed places, below the recorder's toolbar (drawn at the top, from the middle on).
const loginPage = `<!doctype html><html><head><title>Sign in</title></head><body style="margin:0">
<form action="/welcome">
<label for="user" style="position:absolute;left:20px;top:120px">User</label>
<input id="user" name="user" style="position:absolute;left:120px;top:120px;width:200px;height:30px">
<label for="password" style="position:absolute;left:20px;top:180px">Password</label>
<input id="password" name="password" type="password" style="position:absolute;left:120px;top:180px;width:200px;height:30px">
<button style="position:absolute;left:120px;top:240px;width:120px;height:40px">Sign in</button>
</form></body></html>`;
const welcomePage = (user: string) =>
  `<!doctype html><html><head><title>Welcome</title></head><body style="margin:0">
<h1 style="position:absolute;left:20px;top:300px;margin:0">Welcome ${user.replace(/[<&]/g, '')}</h1></body></html>`;

const site = http.createServer((request, response) => {
  response.setHeader('content-type', 'text/html');
  const url = new URL(request.url ?? '/', 'http://site');
  if (url.pathname === '/welcome') return response.end(welcomePage(url.searchParams.get('user') ?? ''));
  response.end(loginPage);
});

/** The steps of a recording so far: each event's steps stand for the last `replaces` before them. */
function applyRecorded(steps: RecordedStep[], event: Event): RecordedStep[] {
  const replaces = event.replaces as number;
  return [...steps.slice(0, steps.length - replaces), ...(event.steps as RecordedStep[])];
}

// Playwright's own JPEG decoder (the screencast's frames are JPEG).
const { jpegjs } = createRequire(import.meta.url)('playwright-core/lib/utilsBundle') as {
  jpegjs: { decode(data: Buffer, options: { useTArray: true }): { width: number; data: Uint8Array } };
};

type Box = { x: number; y: number; width: number; height: number };
type Rgb = (red: number, green: number, blue: number) => boolean;
const dark: Rgb = (red, green, blue) => red + green + blue < 400;
/** The recorder's highlight of an element to assert visible: its light blue over the page. */
const highlight: Rgb = (red, _green, blue) => blue - red > 25;

/** How many pixels of a frame, in a box of the page (CSS pixels: frames are 1280×720 here), pass. */
function pixels(frame: Buffer | undefined, box: Box, test: Rgb): number {
  if (!frame) return 0;
  const image = jpegjs.decode(frame, { useTArray: true });
  let count = 0;
  for (let y = box.y; y < box.y + box.height; y++)
    for (let x = box.x; x < box.x + box.width; x++) {
      const at = (y * image.width + x) * 4;
      if (test(image.data[at] ?? 255, image.data[at + 1] ?? 255, image.data[at + 2] ?? 255)) count++;
    }
  return count;
}
// The recorder's toolbar: its icons at the top, from the middle on.
const toolbar: Box = { x: 645, y: 6, width: 210, height: 20 };
const heading: Box = { x: 20, y: 300, width: 220, height: 35 };

const role = (body: string, name: string) => ({
  selector: `internal:role=${body}[name="${name}"i]`,
  locator: { kind: 'role', body, options: { attrs: [], exact: false, name } },
});

describe('recording in a live session', () => {
  let t: TestApp;
  let siteUrl: string;
  let base: string;
  let wsBase: string;
  let cookie: string;

  beforeAll(async () => {
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
    t = await createTestApp();
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

  it('records a login typed and clicked through the stream as the shared mapper maps the same actions, and stops', async () => {
    const started = await consoleCall(t.app, cookie, {
      method: 'POST',
      url: `/console/v1/projects/${t.bootstrap.projectId}/live-sessions`,
      payload: { url: siteUrl },
    });
    expect(started.statusCode, started.body).toBe(201);
    const live = started.json().data as { streamPath: string };
    const stream = connect(`${wsBase}${live.streamPath}`, cookie, base);
    await stream.opened;
    await stream.until(() => stream.events.find((event) => event.type === 'title'), 'the page title');

    stream.send({ type: 'record', on: 'yes' });
    const refused = await stream.until(
      () => stream.events.find((event) => event.type === 'error'),
      'the refusal of a malformed record message',
    );
    expect(refused.message).toBe('on: on must be true or false');

    const recorded = () => stream.events.filter((event) => event.type === 'recorded');
    const stepsSoFar = () => recorded().reduce(applyRecorded, [] as RecordedStep[]);
    stream.send({ type: 'record', on: true });
    await stream.until(
      () => stream.events.find((event) => event.type === 'recording' && event.on === true),
      'recording on',
    );
    // The recording starts on the page shown.
    expect(await stream.until(() => recorded()[0], 'the first step')).toEqual({
      type: 'recorded',
      steps: [{ name: `Go to ${siteUrl}`, action: { name: 'goto', url: siteUrl } }],
      replaces: 0,
      unmapped: [],
    });

    const click = (x: number, y: number) => {
      stream.send({ type: 'mouse', event: 'move', x, y });
      stream.send({ type: 'mouse', event: 'down', x, y, button: 'left', clickCount: 1 });
      stream.send({ type: 'mouse', event: 'up', x, y, button: 'left', clickCount: 1 });
    };
    const type = (text: string) => {
      for (const key of text) {
        stream.send({ type: 'key', event: 'down', key });
        stream.send({ type: 'key', event: 'up', key });
      }
    };
    click(220, 135);
    type('ada');
    click(220, 195);
    stream.send({ type: 'text', text: 'secret' });
    click(180, 260);
    await stream.until(
      () => stream.events.find((event) => event.type === 'title' && event.title === 'Welcome'),
      'the welcome page',
    );
    // The recorder draws its toolbar in the new page a moment after it loads.
    await stream.until(() => {
      const frame = stream.frames.at(-1);
      return pixels(frame, toolbar, dark) > 40 && pixels(frame, heading, dark) > 40 ? true : undefined;
    }, "the new page with the recorder's toolbar");
    // As a person does: "Assert visibility" in the toolbar, point at the heading until the
    // recorder highlights it, then click it.
    click(744, 16);
    let nudge = 0;
    await stream.until(() => {
      if (pixels(stream.frames.at(-1), heading, highlight) > 200) return true;
      stream.send({ type: 'mouse', event: 'move', x: 100 + (nudge++ % 2), y: 315 });
      return undefined;
    }, 'the heading highlighted by the recorder');
    click(100, 315);

    const page = 'page@1';
    const line = (action: Record<string, unknown>) =>
      JSON.stringify({ signals: [], pageGuid: page, ...action });
    const clickOn = (target: ReturnType<typeof role>) =>
      line({ name: 'click', ...target, button: 'left', modifiers: 0, clickCount: 1 });
    const expected = mapRecording(
      parseRecording(
        [
          JSON.stringify({ name: 'navigate', url: siteUrl, signals: [] }),
          clickOn(role('textbox', 'User')),
          line({ name: 'fill', ...role('textbox', 'User'), text: 'ada' }),
          clickOn(role('textbox', 'Password')),
          line({ name: 'fill', ...role('textbox', 'Password'), text: 'secret' }),
          clickOn(role('button', 'Sign in')),
          line({ name: 'assertVisible', ...role('heading', 'Welcome ada') }),
        ].join('\n'),
      ),
    );
    expect(expected.steps.map((step) => step.action.name)).toEqual([
      'goto',
      'click',
      'fill',
      'click',
      'fill',
      'click',
      'assertVisible',
    ]);
    await stream.until(
      () => (stepsSoFar().length >= expected.steps.length ? true : undefined),
      'the recorded steps',
    );
    expect(stepsSoFar()).toEqual(expected.steps);
    // Typing on in a field comes as the fill step sent again, standing for the one before.
    expect(recorded().some((event) => (event.replaces as number) > 0)).toBe(true);

    stream.send({ type: 'record', on: false });
    await stream.until(
      () => stream.events.find((event) => event.type === 'recording' && event.on === false),
      'recording off',
    );
    const count = recorded().length;
    stream.send({ type: 'navigate', url: siteUrl });
    await stream.until(
      () => stream.events.findLast((event) => event.type === 'title' && event.title === 'Sign in'),
      'the login page again',
    );
    click(220, 135);
    type('bob');
    // Past the recorder's half second of holding a click back: nothing more was recorded.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(recorded().length).toBe(count);

    // On again: a new recording, starting on the page shown now.
    stream.send({ type: 'record', on: true });
    const again = await stream.until(() => recorded()[count], 'the new recording');
    expect(again).toMatchObject({ steps: [{ action: { name: 'goto', url: siteUrl } }], replaces: 0 });

    // Going on from a test's earlier steps (`goto: false`): no step going to the page shown.
    const switches = (on: boolean) =>
      stream.events.filter((event) => event.type === 'recording' && event.on === on).length;
    stream.send({ type: 'record', on: false });
    await stream.until(() => switches(false) >= 2 || undefined, 'recording off again');
    const before = recorded().length;
    stream.send({ type: 'record', on: true, goto: false });
    await stream.until(() => switches(true) >= 3 || undefined, 'recording on from the page shown');
    click(220, 135);
    type('cy');
    await stream.until(
      () =>
        recorded()
          .slice(before)
          .find((event) => (event.steps as RecordedStep[]).length > 0),
      'the first step going on',
    );
    const onwards = recorded()
      .slice(before)
      .flatMap((event) => event.steps as RecordedStep[]);
    expect(onwards.map((step) => step.action.name)).not.toContain('goto');
    expect(onwards[0]?.action.name).toBe('click');
    stream.socket.close();
  }, 120_000);
});
