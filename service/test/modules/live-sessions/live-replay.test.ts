/**
 * Replay to a step in a live session against real parts: the app on a real port, a real
 * Chromium behind the sessions' egress proxy, a loopback site, and a real WebSocket client that
 * sends what the console sends. What the replay did is read back as the console sees it: the
 * element picker's answer at a point of the page, and the `url` events.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleCall, createTestApp, type TestApp } from '../../helper.ts';
import { connect, type Event } from './stream-client.ts';

// The greeting appears at a fixed place once "Continue" is clicked, so a pick there finds it.
const formPage = `<!doctype html><html><head><title>Start</title></head><body style="margin:0">
<label for="who" style="position:absolute;left:20px;top:20px">Your name</label>
<input id="who" style="position:absolute;left:120px;top:20px;width:200px;height:30px">
<button id="go" style="position:absolute;left:20px;top:80px;width:120px;height:40px">Continue</button>
<h1 id="hello" hidden style="position:absolute;left:20px;top:300px;margin:0;width:400px">x</h1>
<script>
document.getElementById('go').addEventListener('click', () => {
  const heading = document.getElementById('hello');
  heading.textContent = 'Hello ' + document.getElementById('who').value;
  heading.hidden = false;
});
</script></body></html>`;

const site = http.createServer((request, response) => {
  response.setHeader('content-type', 'text/html');
  if (request.url === '/other') return response.end('<!doctype html><title>Other</title><p>Other page</p>');
  response.end(formPage);
});

const step = (id: string, name: string, action: Record<string, unknown>, extra: object = {}) => ({
  id,
  name,
  action,
  ...extra,
});

describe('replay to a step in a live session', () => {
  let t: TestApp;
  let siteUrl: string;
  let base: string;
  let stream: ReturnType<typeof connect>;

  /** Sends a replay and waits for its outcome; the events it caused come back too. */
  const replay = async (message: object) => {
    const from = stream.events.length;
    stream.send({ type: 'replay', ...message });
    const outcome = await stream.until(
      () => stream.events.slice(from).find((event) => event.type === 'replayed' || event.type === 'error'),
      'the replay outcome',
    );
    return { outcome, events: stream.events.slice(from) };
  };
  const pick = async (x: number, y: number) => {
    const from = stream.events.length;
    stream.send({ type: 'pick', x, y });
    return stream.until(
      () => stream.events.slice(from).find((event) => event.type === 'picked'),
      'the picked element',
    );
  };

  beforeAll(async () => {
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
    t = await createTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (t.app.server.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
    const cookie = await t.consoleCookie();
    const started = await consoleCall(t.app, cookie, {
      method: 'POST',
      url: `/console/v1/projects/${t.bootstrap.projectId}/live-sessions`,
      payload: { url: 'about:blank' },
    });
    expect(started.statusCode, started.body).toBe(201);
    const live = started.json().data as { streamPath: string };
    stream = connect(`ws://127.0.0.1:${port}${live.streamPath}`, cookie, base);
    await stream.opened;
    await stream.until(() => stream.events.find((event) => event.type === 'title'), 'the page title');
  }, 60_000);

  afterAll(async () => {
    stream?.socket.close();
    await t?.close();
    site.close();
  });

  it('runs the steps up to the chosen one in the live page, groups and templates included', async () => {
    const { outcome, events } = await replay({
      baseURL: siteUrl,
      vars: { who: 'Ada' },
      steps: [
        step('s1', 'Open the form', { name: 'goto', url: '/start' }),
        step(
          'g1',
          'Enter the name',
          { name: 'group' },
          {
            children: [
              step('s2', 'Type the name', { name: 'fill', selector: '#who', value: '{{vars.who}}' }),
              step(
                's3',
                'Not this one',
                { name: 'fill', selector: '#who', value: 'Bob' },
                {
                  condition: { type: 'skip' },
                },
              ),
              step(
                's3b',
                'Only for Bob',
                { name: 'fill', selector: '#who', value: 'Bob' },
                { condition: { type: 'if', variable: 'who', equals: 'Bob' } },
              ),
              step('s4', '', { name: 'assertText', selector: '#who', value: 'never checked' }),
            ],
          },
        ),
        step('s5', 'Continue', { name: 'click', selector: 'internal:role=button[name="Continue"i]' }),
        step('s6', 'Greeting shown', { name: 'assertVisible', selector: '#hello' }),
      ],
    });
    // Skipped steps count as done: they were passed over as a run passes over them.
    expect(outcome).toEqual({ type: 'replayed', done: 7, total: 7 });
    // Each step that acts is announced as it starts; the skipped ones are not.
    expect(events.filter((event) => event.type === 'replaying').map((event) => event.step)).toEqual([
      { stepId: 's1', name: 'Open the form' },
      { stepId: 's2', name: 'Type the name' },
      { stepId: 's4', name: 'assertText' },
      { stepId: 's5', name: 'Continue' },
      { stepId: 's6', name: 'Greeting shown' },
    ]);
    expect(events.some((event) => event.type === 'url' && event.url === `${siteUrl}start`)).toBe(true);
    const picked = await pick(100, 315);
    expect(picked.element).toEqual({ tag: 'h1', role: 'heading', name: 'Hello Ada' });
  }, 60_000);

  it('stops at a step naming a secret or the run environment, before it reaches the page', async () => {
    const opening = step('s1', 'Open the form', { name: 'goto', url: siteUrl });
    for (const [kind, reason] of [
      ['secrets', '{{secrets.PASSWORD}} is not filled in the live browser: secrets enter only a test run'],
      [
        'env',
        "{{env.PASSWORD}} is not filled in the live browser: the run environment's variables enter only a test run",
      ],
    ] as const) {
      const { outcome } = await replay({
        steps: [
          opening,
          step('s2', 'Password', { name: 'fill', selector: '#who', value: `{{${kind}.PASSWORD}}` }),
          step('s3', 'Continue', { name: 'click', selector: '#go' }),
        ],
      });
      expect(outcome).toEqual({
        type: 'replayed',
        done: 1,
        total: 3,
        stoppedAt: { stepId: 's2', name: 'Password', reason },
      });
    }
    // The field was never filled and the button never clicked: the greeting is still hidden.
    const picked = await pick(100, 315);
    expect((picked.element as { role: string | null } | null)?.role).not.toBe('heading');
  }, 60_000);

  it('stops at a script, and at a step whose action is not valid', async () => {
    const { outcome } = await replay({
      steps: [
        step('s1', 'Open the form', { name: 'goto', url: siteUrl }),
        step('s2', 'Run a script', { name: 'evaluate', script: 'document.title = "changed"' }),
      ],
    });
    expect(outcome).toEqual({
      type: 'replayed',
      done: 1,
      total: 2,
      stoppedAt: {
        stepId: 's2',
        name: 'Run a script',
        reason: 'evaluate is not replayed in the live browser (scripts run only in a test run)',
      },
    });
    const invalid = await replay({ steps: [step('s1', 'Click', { name: 'click' })] });
    expect(invalid.outcome).toMatchObject({
      done: 0,
      stoppedAt: {
        stepId: 's1',
        reason: 'its action is not valid: action.selector: selector is required and must be a string',
      },
    });
  }, 60_000);

  it('opens only http(s) addresses its egress rules allow, as the address bar does', async () => {
    const stopped = async (url: string, vars: Record<string, unknown> = {}) =>
      (await replay({ vars, steps: [step('s1', 'Go', { name: 'goto', url })] })).outcome.stoppedAt as {
        reason: string;
      };
    expect((await stopped('file:///etc/passwd')).reason).toBe(
      'its action is not valid: action.url: url must be an http or https URL or a path relative to baseURL; "file:" is not allowed',
    );
    // Known only once the template is filled in: the runtime's own check refuses it then.
    expect((await stopped('{{vars.target}}', { target: 'file:///etc/passwd' })).reason).toBe(
      'goto: only http and https URLs may be opened; "file:" is not allowed (file:///etc/passwd)',
    );
    // The service itself is out of the sessions' reach, as it is out of a run's.
    const port = new URL(base).port;
    expect((await stopped(`${base}/console/v1/session`)).reason).toBe(
      `goto: url: blocked by the runner's egress rules: 127.0.0.1 port ${port} is the Stepdeck service's own HTTP port on this host (denied by default; RUNNER_EGRESS_ALLOW can permit it)`,
    );
    expect((await stopped('/relative')).reason).toBe(
      'goto: "/relative" is not an absolute URL and no baseURL is set to resolve it against',
    );
  }, 60_000);

  it('holds the page while it runs: input and other replays are refused, and bad replays too', async () => {
    const from = stream.events.length;
    stream.send({
      type: 'replay',
      steps: [
        step('s1', 'Open', { name: 'goto', url: `${siteUrl}other` }),
        step('s2', 'Wait', { name: 'wait', ms: 1500 }),
      ],
    });
    stream.send({ type: 'mouse', event: 'move', x: 10, y: 10 });
    stream.send({ type: 'replay', steps: [step('s1', 'Open', { name: 'goto', url: siteUrl })] });
    const after = () => stream.events.slice(from);
    await stream.until(() => after().find((event) => event.type === 'replayed'), 'the replay outcome');
    expect(after().filter((event) => event.type === 'error')).toEqual([
      { type: 'error', message: 'a replay is running: wait for it to end' },
      { type: 'error', message: 'a replay is running: wait for it to end' },
    ]);
    expect(after().filter((event) => event.type === 'replayed')).toEqual([
      { type: 'replayed', done: 2, total: 2 },
    ]);

    const many = Array.from({ length: 501 }, (_, index) =>
      step(`s${index}`, 'Wait', { name: 'wait', ms: 0 }),
    );
    expect((await replay({ steps: many })).outcome).toEqual({
      type: 'error',
      message: 'steps: a replay runs at most 500 steps',
    });
    let deep: object = step('leaf', 'Wait', { name: 'wait', ms: 0 });
    for (let level = 0; level < 60; level++)
      deep = step(`g${level}`, 'Group', { name: 'group' }, { children: [deep] });
    expect((await replay({ steps: [deep] })).outcome).toEqual({
      type: 'error',
      message: 'steps: groups nest at most 50 levels deep',
    });

    stream.send({ type: 'record', on: true });
    await stream.until(
      () => stream.events.find((event: Event) => event.type === 'recording' && event.on === true),
      'recording on',
    );
    expect((await replay({ steps: [step('s1', 'Wait', { name: 'wait', ms: 0 })] })).outcome).toEqual({
      type: 'error',
      message: 'stop recording before replaying steps',
    });
    stream.send({ type: 'record', on: false });
  }, 60_000);
});
