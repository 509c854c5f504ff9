import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleCall, createTestApp, type TestApp } from '../../helper.ts';
import { apiTest, createTest, type Site, startSite, waitForStatus } from '../runs/helpers.ts';

/**
 * The install settings' egress rules reach the runner without a restart: a deny rule set in
 * the console refuses the next run's request to a loopback site, naming where the rule comes
 * from; once removed, the next run reaches the site.
 */
describe('runner egress rules from the install settings', () => {
  let t: TestApp;
  let site: Site;
  let testId: string;
  let offsetMs = 0;
  const clock = { now: () => new Date(Date.now() + offsetMs) };
  const setRules = async (deny: string[]) => {
    const response = await consoleCall(t.app, await t.consoleCookie(), {
      method: 'PUT',
      url: '/console/v1/install/settings',
      payload: { runnerEgress: { deny, allow: [] } },
    });
    expect(response.statusCode, response.body).toBe(200);
  };
  const run = async () => {
    offsetMs += 11_000; // past the per-test cooldown between remote runs
    const started = await t.api({ method: 'POST', url: `/v1/tests/${testId}/remote-run` });
    expect(started.statusCode, started.body).toBe(200);
    const runId = started.json().data.runId as string;
    const ended = await waitForStatus(t, runId, ['completed', 'failed'], 240_000);
    const tests = await t.api({ method: 'GET', url: `/v1/test-runs/${runId}` });
    return { status: ended.status, report: tests.body };
  };

  beforeAll(async () => {
    site = await startSite();
    t = await createTestApp({ clock, background: true, env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    testId = await createTest(t, apiTest('Internal API', `${site.url}/status?code=200`));
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await site?.close();
  });

  it('refuses the next run once a deny rule is saved, and lets the one after through once removed', async () => {
    const port = new URL(site.url).port;
    await setRules([`127.0.0.1:${port}`]);
    const refused = await run();
    expect(refused.status).toBe('failed');
    expect(site.hits.get('/status?code=200')).toBeUndefined();
    expect(refused.report).toContain(
      `blocked by the runner's egress rules: 127.0.0.1 port ${port} matches 127.0.0.1:${port} (install settings)`,
    );
    await setRules([]);
    const passed = await run();
    expect(passed.status).toBe('completed');
    expect(site.hits.get('/status?code=200')).toBe(1);
  }, 600_000);
});
