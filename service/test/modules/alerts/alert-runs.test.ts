import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleCall, createTestApp, type TestApp } from '../../helper.ts';
import { apiTest, createTest, waitForStatus } from '../runs/helpers.ts';
import { makeCertificate, type Receiver, startReceiver } from '../webhooks/receiver.ts';
import { type SmtpReceiver, startSmtpReceiver } from './smtp-receiver.ts';

const certificate = makeCertificate();
const relayLogin = { username: 'alerts', password: 'relay-secret-4f9a' };
const slackToken = 'T000/B000/XXXXslacktokenXXXX';

/** A site whose `/status` answers 200 or 500 as the test says. */
async function startSite() {
  const state = { up: false };
  const server = http.createServer((_request, response) => {
    response.statusCode = state.up ? 200 : 500;
    response.end(state.up ? 'ok' : 'down');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/status`,
    state,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('alerts for real runs: Slack, Teams and email on failed and recovered', () => {
  let t: TestApp;
  let site: Awaited<ReturnType<typeof startSite>>;
  let receiver: Receiver;
  let relay: SmtpReceiver;
  let admin: string;
  let testId: string;
  let offsetMs = 0;
  const logs: string[] = [];
  const clock = { now: () => new Date(Date.now() + offsetMs) };
  const paths = () => receiver.requests.map((request) => request.url);
  const bodiesAt = (path: string) =>
    receiver.requests
      .filter((request) => request.url === path)
      .map((request) => JSON.parse(String(request.rawBody)));

  const run = async (id: string) => {
    offsetMs += 11_000; // past the per-test cooldown between remote runs
    const response = await t.api({ method: 'POST', url: `/v1/tests/${id}/remote-run` });
    expect(response.statusCode, response.body).toBe(200);
    const runId = response.json().data.runId as string;
    const ended = await waitForStatus(t, runId, ['completed', 'failed']);
    return { runId, status: ended.status };
  };
  const until = async (check: () => boolean, what: string) => {
    const deadline = Date.now() + 30_000;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${paths().join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await t.app.alerts.pending();
  };
  const channel = async (payload: Record<string, unknown>) => {
    const response = await consoleCall(t.app, admin, {
      method: 'POST',
      url: `/console/v1/projects/${t.bootstrap.projectId}/alert-channels`,
      payload,
    });
    expect(response.statusCode, response.body).toBe(201);
    return response.json().data as { id: string };
  };

  beforeAll(async () => {
    site = await startSite();
    receiver = await startReceiver(certificate);
    relay = await startSmtpReceiver(certificate, relayLogin);
    t = await createTestApp({
      clock,
      background: true,
      env: {
        RATE_LIMIT_PER_MINUTE: '100000',
        PUBLIC_URL: 'https://stepdeck.example.com',
        LOG_LEVEL: 'debug',
      },
      logStream: { write: (line) => void logs.push(line) },
    });
    t.app.alerts.configure({ ca: certificate.cert, attemptDelaysMs: [0] });
    t.app.webhooks.configure({ ca: certificate.cert, pollIntervalMs: 100, attemptDelaysMs: [0] });
    await t.app.webhooks.start();
    admin = await t.consoleCookie();
    const settings = await consoleCall(t.app, admin, {
      method: 'PUT',
      url: '/console/v1/install/settings',
      payload: {
        webhookAllowedTargets: ['127.0.0.1'],
        smtpRelay: {
          host: '127.0.0.1',
          port: relay.port,
          security: 'starttls',
          user: relayLogin.username,
          password: relayLogin.password,
          from: 'stepdeck@example.com',
        },
      },
    });
    expect(settings.statusCode, settings.body).toBe(200);
    testId = await createTest(t, apiTest('Checkout API', site.url));
    await channel({ kind: 'slack', name: 'QA channel', url: receiver.url(`/services/${slackToken}`) });
    await channel({ kind: 'teams', name: 'Teams', url: receiver.url('/teams/webhookb2/abc') });
    await channel({ kind: 'slack', name: 'Every failure', url: receiver.url('/every'), everyFailure: true });
    await channel({ kind: 'email', name: 'QA leads', recipients: ['qa@example.com', 'lead@example.com'] });
  }, 120_000);
  afterAll(async () => {
    await t?.app.webhooks.stop();
    await t?.close();
    await Promise.all([site?.close(), receiver?.close(), relay?.close()]);
  });

  it('alerts on the first failure with the run link, the failing test and its triage', async () => {
    const failed = await run(testId);
    expect(failed.status).toBe('failed');
    await until(() => receiver.requests.length >= 3 && relay.messages.length >= 1, 'the failure alerts');
    const runUrl = `https://stepdeck.example.com/console/projects/${t.bootstrap.projectId}/runs/${failed.runId}`;

    const [slack] = bodiesAt(`/services/${slackToken}`);
    expect(slack.text).toBe(`Run failed: ${'Checkout API'} (1 of 1 failed) — ${runUrl}`);
    const slackBlocks = JSON.stringify(slack.blocks);
    expect(slackBlocks).toContain('*Checkout API* [new]');
    expect(slackBlocks).toContain(runUrl);

    const [teams] = bodiesAt('/teams/webhookb2/abc');
    const card = teams.attachments[0];
    expect(card.contentType).toBe('application/vnd.microsoft.card.adaptive');
    expect(card.content.type).toBe('AdaptiveCard');
    expect(card.content.body[0].text).toBe('Run failed: Checkout API (1 of 1 failed)');
    expect(card.content.body[2].facts[0].title).toBe('Checkout API [new]');
    expect(card.content.actions).toEqual([{ type: 'Action.OpenUrl', title: 'Open run', url: runUrl }]);

    const [mail] = relay.messages;
    expect(mail?.envelopeTo).toEqual(['qa@example.com', 'lead@example.com']);
    expect(mail?.mail.subject).toBe('[Stepdeck] Run failed: Checkout API (1 of 1 failed)');
    expect(mail?.mail.from?.text).toBe('stepdeck@example.com');
    expect(mail?.mail.text).toContain('- Checkout API [new]');
    expect(mail?.mail.text).toContain(`Open the run: ${runUrl}`);
    expect(mail?.mail.html).toContain(`<a href="${runUrl}">Open the run</a>`);
    expect(relay.logins).toEqual([{ username: 'alerts', accepted: true }]);
  }, 120_000);

  it('stays quiet on a second failure in a row, except on a channel set to alert on every failure', async () => {
    const before = { requests: receiver.requests.length, mails: relay.messages.length };
    const failed = await run(testId);
    expect(failed.status).toBe('failed');
    await until(() => bodiesAt('/every').length === 2, 'the every-failure alert');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.requests.length).toBe(before.requests + 1);
    expect(relay.messages.length).toBe(before.mails);
  }, 120_000);

  it('says "recovered" on the first pass after the failures, then nothing on the next pass', async () => {
    site.state.up = true;
    const passed = await run(testId);
    expect(passed.status).toBe('completed');
    await until(
      () => bodiesAt('/teams/webhookb2/abc').length === 2 && relay.messages.length === 2,
      'recoveries',
    );
    const slack = bodiesAt(`/services/${slackToken}`);
    expect(slack).toHaveLength(2);
    expect(slack[1].text).toMatch(
      /^Recovered: Checkout API passed again — https:\/\/stepdeck\.example\.com\//,
    );
    expect(bodiesAt('/every')).toHaveLength(3);
    expect(relay.messages[1]?.mail.subject).toBe('[Stepdeck] Recovered: Checkout API passed again');
    const count = receiver.requests.length;
    expect((await run(testId)).status).toBe('completed');
    await t.app.history.pending();
    await new Promise((resolve) => setTimeout(resolve, 500));
    await t.app.alerts.pending();
    expect(receiver.requests.length).toBe(count);
    expect(relay.messages).toHaveLength(2);
  }, 120_000);

  it('records when each channel last sent, and never logs the relay password or a chat URL token', async () => {
    const list = await consoleCall(t.app, admin, {
      method: 'GET',
      url: `/console/v1/projects/${t.bootstrap.projectId}/alert-channels`,
    });
    const channels = list.json().data as Array<{
      name: string;
      lastSentAt: string | null;
      lastError: string | null;
    }>;
    expect(channels.map((entry) => [entry.name, entry.lastError, entry.lastSentAt !== null])).toEqual([
      ['QA channel', null, true],
      ['Teams', null, true],
      ['Every failure', null, true],
      ['QA leads', null, true],
    ]);
    const audit = await consoleCall(t.app, admin, { method: 'GET', url: '/console/v1/audit-log?limit=100' });
    expect(audit.body).toContain('POST /console/v1/projects/:projectId/alert-channels');
    const everything = logs.join('') + audit.body;
    expect(logs.length).toBeGreaterThan(0);
    expect(everything).not.toContain(relayLogin.password);
    expect(everything).not.toContain(slackToken);
  });

  it('adds the left-out tests to the webhook body of a directory run', async () => {
    const directory = await createTest(t, { name: 'Checkout suite', directory: true });
    await createTest(t, { ...apiTest('Refunds API', site.url), parentTestId: directory });
    await createTest(t, { ...apiTest('Vouchers API', site.url), parentTestId: directory, status: 'draft' });
    const hook = await consoleCall(t.app, admin, {
      method: 'POST',
      url: '/console/v1/webhooks',
      payload: { url: receiver.url('/ci-bridge'), events: ['run.completed'] },
    });
    expect(hook.statusCode, hook.body).toBe(201);
    const ran = await run(directory);
    expect(ran.status).toBe('completed');
    await until(() => paths().includes('/ci-bridge'), 'the webhook delivery');
    const [body] = bodiesAt('/ci-bridge');
    expect(body.run.leftOut).toEqual({
      count: 1,
      tests: [{ testId: expect.any(String), name: 'Vouchers API', status: 'draft' }],
    });
  }, 120_000);
});
