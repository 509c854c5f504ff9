import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunTestResult } from '@stepdeck/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleCall, createTestApp, login, type TestApp } from '../../helper.ts';
import { attackerCiKey, createTest, waitForStatus } from './helpers.ts';

/**
 * Locator suggestions and healing on a real loopback site and real Chromium: a button renamed
 * from "Save" to "Save changes" fails the step with the right suggestion first; with
 * `heal: retry` the test passes and says it was healed; a page with nothing alike gives no
 * retry; "use this locator" writes the working revision and the next run passes; another
 * organization can neither read nor apply the suggestions.
 */
describe('locator suggestions and healing', () => {
  let t: TestApp;
  let server: http.Server;
  let base = '';

  const page = (body: string) =>
    `<!doctype html><title>Edit</title><main>${body}<p id="status">idle</p></main>` +
    `<script>for (const b of document.querySelectorAll('button')) b.addEventListener('click', () => { document.getElementById('status').textContent = 'saved by ' + b.textContent; });</script>`;

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      if (request.url === '/unrelated') {
        response.end(page('<h1>Weather</h1><p>Sunny, 21 degrees.</p><a href="/forecast">Forecast</a>'));
        return;
      }
      // The app after its rename: the button that said "Save" now says "Save changes".
      response.end(
        page(
          '<h1>Profile</h1><label>Name <input id="name"></label><button type="button">Cancel</button><button type="button">Save changes</button>',
        ),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    t = await createTestApp({ background: true, env: { RATE_LIMIT_PER_MINUTE: '100000' } });
  });
  afterAll(async () => {
    await t?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  /** `getByRole('button', { name: 'Save', exact: true })`, as a recorder writes it. */
  const saveSelector = 'internal:role=button[name="Save"s]';
  const saveTest = (name: string, heal: string, url = '/') => ({
    name,
    config: { heal, use: { baseURL: base, actionTimeout: 2_000 } },
    steps: [
      { name: 'open', action: { name: 'goto', url } },
      { name: 'save', action: { name: 'click', selector: saveSelector } },
      { name: 'saved', action: { name: 'assertText', selector: '#status', value: 'saved by Save changes' } },
    ],
  });

  const runTest = async (testId: string) => {
    const started = await t.api({ method: 'POST', url: `/v1/tests/${testId}/remote-run`, payload: {} });
    expect(started.statusCode, started.body).toBe(200);
    const runId = started.json().data.runId as string;
    const run = await waitForStatus(t, runId, ['completed', 'failed'], 180_000);
    const report = run.report as { runTypeInfo: { testResults: RunTestResult[] } };
    const result = report.runTypeInfo.testResults[0] as RunTestResult;
    return { runId, run, result };
  };

  let failedRun = { runId: '', testId: '', stepId: '' };

  it('fails a renamed button with the right suggestion first (heal: suggest)', async () => {
    const id = await createTest(t, saveTest('suggests', 'suggest'));
    const { runId, run, result } = await runTest(id);
    expect(run.status).toBe('failed');
    expect(result.status).toBe('failed');
    const suggestions = result.locatorSuggestions;
    expect(suggestions?.problem).toBe('none');
    expect(suggestions?.from).toBe(saveSelector);
    expect(suggestions?.step).toBe(2);
    expect(suggestions?.stepId).toBe(result.failedStep?.stepId);
    expect(suggestions?.suggestions[0]).toMatchObject({
      locator: "getByRole('button', { name: 'Save changes' })",
      selector: 'internal:role=button[name="Save changes"i]',
      matches: 1,
    });
    // Ranked: the renamed button before the other one; every suggestion found on the page.
    const locators = suggestions?.suggestions.map((suggestion) => suggestion.locator) ?? [];
    expect(locators.indexOf("getByRole('button', { name: 'Cancel' })")).not.toBe(0);
    expect(suggestions?.suggestions.every((suggestion) => suggestion.matches >= 1)).toBe(true);
    // The failure text names the failing locator and the closest element now.
    expect(result.errorMessage).toContain(
      "no element for getByRole('button', { name: 'Save', exact: true }); closest now: getByRole('button', { name: 'Save changes' })",
    );
    expect(result.healed ?? []).toEqual([]);
    failedRun = { runId, testId: id, stepId: suggestions?.stepId ?? '' };
  }, 240_000);

  it('passes as healed with heal: retry, the locator used recorded; the status stays the spec\'s "passed"', async () => {
    const id = await createTest(t, saveTest('retries', 'retry'));
    const { run, result } = await runTest(id);
    expect(run.status).toBe('completed');
    expect(result.status).toBe('passed');
    expect(result.healed).toEqual([
      {
        stepId: expect.any(String),
        step: 2,
        from: saveSelector,
        to: 'internal:role=button[name="Save changes"i]',
        locator: "getByRole('button', { name: 'Save changes' })",
      },
    ]);
    const step = result.steps?.find((candidate) => candidate.name === 'save');
    expect(step?.status).toBe('passed');
    expect(step?.healed?.locator).toBe("getByRole('button', { name: 'Save changes' })");
    // The step after it saw the click on the renamed button.
    expect(result.steps?.find((candidate) => candidate.name === 'saved')?.status).toBe('passed');
  }, 240_000);

  it('does not retry on a page with nothing alike, and fails honestly', async () => {
    const id = await createTest(t, saveTest('unrelated', 'retry', '/unrelated'));
    const { run, result } = await runTest(id);
    expect(run.status).toBe('failed');
    expect(result.status).toBe('failed');
    expect(result.healed ?? []).toEqual([]);
    expect(result.failedStep?.name).toBe('save');
    expect(result.locatorSuggestions?.suggestions.some((s) => s.score >= 0.7) ?? false).toBe(false);
  }, 240_000);

  it('keeps the suggestions from another organization, to read or to apply', async () => {
    const attacker = await attackerCiKey(t);
    const read = await t.app.inject({
      method: 'GET',
      url: `/v1/test-runs/${failedRun.runId}`,
      headers: attacker,
    });
    expect(read.statusCode).toBe(404);
    expect(read.body).not.toContain('Save changes');
    const owner = await login(t.app, 'owner@attack.example', 'attack-password');
    const apply = await consoleCall(t.app, owner, {
      method: 'POST',
      url: `/console/v1/test-runs/${failedRun.runId}/tests/${failedRun.testId}/steps/${failedRun.stepId}/use-locator`,
      payload: { locator: 'internal:role=button[name="Save changes"i]' },
    });
    expect(apply.statusCode).toBe(404);
    expect(apply.json().code).toBe('RUN_NOT_FOUND');
  });

  it('"use this locator" writes the working revision, refuses what was not suggested, and the next run passes', async () => {
    const cookie = await t.consoleCookie();
    const url = `/console/v1/test-runs/${failedRun.runId}/tests/${failedRun.testId}/steps/${failedRun.stepId}/use-locator`;
    const invented = await consoleCall(t.app, cookie, {
      method: 'POST',
      url,
      payload: { locator: '#anything-else' },
    });
    expect(invented.statusCode).toBe(422);
    expect(invented.json().code).toBe('LOCATOR_NOT_SUGGESTED');
    const empty = await consoleCall(t.app, cookie, { method: 'POST', url, payload: { locator: '' } });
    expect(empty.statusCode).toBe(400);

    const before = await t.api({ method: 'GET', url: `/v1/tests/${failedRun.testId}` });
    const applied = await consoleCall(t.app, cookie, {
      method: 'POST',
      url,
      payload: { locator: "getByRole('button', { name: 'Save changes' })" },
    });
    expect(applied.statusCode, applied.body).toBe(200);
    expect(applied.json().data).toMatchObject({
      testId: failedRun.testId,
      selector: 'internal:role=button[name="Save changes"i]',
    });
    const steps = await t.api({ method: 'GET', url: `/v1/tests/${failedRun.testId}/steps` });
    expect(steps.body).toContain('internal:role=button[name=\\"Save changes\\"i]');
    expect(steps.body).not.toContain('internal:role=button[name=\\"Save\\"s]');
    expect(applied.json().data.editVersion).toBeGreaterThan(0);
    expect(before.statusCode).toBe(200);

    // Applied once, the run's step is no longer in the working revision as the run saw it.
    const again = await consoleCall(t.app, cookie, {
      method: 'POST',
      url,
      payload: { locator: 'internal:role=button[name="Save changes"i]' },
    });
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('TEST_CHANGED_SINCE_RUN');

    const { run, result } = await runTest(failedRun.testId);
    expect(run.status).toBe('completed');
    expect(result.status).toBe('passed');
    expect(result.healed ?? []).toEqual([]);
  }, 240_000);
});
