import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveChromium } from '../service/src/runner/browser.ts';
import { CHROMIUM_ARGS } from '../service/src/runner/compiler/constants.ts';
import { record, recordMain } from '../src/record/command.ts';
import type { RecorderPage } from '../src/record/session.ts';
import { type Service, startService, waitFor } from './e2e/harness.ts';

/**
 * `stepdeck record` on the real recorder of the pinned Playwright: Debian's Chromium without a
 * window (no X server here) with codegen's recorder shown (its inspector headless too), driven
 * through Playwright's API as a user would act; the recorder's JSONL is mapped and saved to the
 * real service, and the saved test is run there and passes.
 */
// Playwright reads these when the recorder starts: the inspector window without a display, and
// the recorder's in-page toolbar in an open shadow root so the test can press its assert tools.
process.env.PWTEST_CLI_HEADLESS = '1';
process.env.PWTEST_UNDER_TEST = '1';
const chromiumArgs = CHROMIUM_ARGS;
let chromiumPath = '';

const formPage = `<!doctype html><html><head><title>Sign up</title></head><body>
<h1>Create your account</h1>
<label>Email <input id="email"></label>
<input placeholder="Search docs">
<label>Plan <select id="plan"><option value="free">Free</option><option value="pro">Pro</option></select></label>
<label><input type="checkbox" id="terms"> Accept terms</label>
<label><input type="checkbox" id="news" checked> Newsletter</label>
<label>Avatar <input type="file" id="avatar"></label>
<button data-testid="submit">Submit</button>
<p id="result"></p>
<ul><li>Item</li><li>Item</li></ul>
<button id="twice">Double</button>
<iframe title="Widget" srcdoc="<button onclick=&quot;this.textContent='Inner clicked'&quot;>Inner</button>"></iframe>
<script>
  document.querySelector('[data-testid=submit]').onclick = () => {
    const file = document.getElementById('avatar').files[0];
    document.getElementById('result').textContent = 'Welcome ' + document.getElementById('email').value +
      ' on ' + document.getElementById('plan').value + (document.getElementById('terms').checked ? ' with terms' : '') +
      (document.getElementById('news').checked ? '' : ' without news') + (file ? ' and ' + file.name : '');
  };
  document.querySelectorAll('li')[1].onclick = (e) => { e.target.textContent = 'Item picked'; };
  document.getElementById('twice').ondblclick = (e) => { e.target.textContent = 'Twice'; };
</script></body></html>`;

async function startFormSite(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((_request, response) => {
    response.setHeader('content-type', 'text/html');
    response.end(formPage);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// biome-ignore lint/suspicious/noExplicitAny: Playwright's Page, which the CLI does not type
type Page = any;

/** What a user does in the recorded browser. */
async function actAsUser(recorderPage: RecorderPage, avatar: string) {
  const page = recorderPage as Page;
  const tool = (name: string) => page.locator(`x-pw-tool-item.${name}`);
  await page.getByLabel('Email').fill('ada@example.com');
  await page.getByLabel('Email').press('Enter');
  await page.getByPlaceholder('Search docs').fill('steps');
  await page.getByLabel('Plan').selectOption('pro');
  await page.getByLabel('Accept terms').check();
  await page.getByLabel('Newsletter').uncheck();
  await page.getByLabel('Avatar').setInputFiles(avatar);
  await page.getByTestId('submit').click();
  await page.getByText('Item').nth(1).click();
  await page.locator('#twice').dblclick();
  await page.frameLocator('iframe').getByRole('button', { name: 'Inner' }).click();
  await page.locator('h1').click({ modifiers: ['Shift'] });
  // The recorder's toolbar: assert visibility, text (accepted as proposed), value, checked.
  await tool('visibility').click();
  await page.getByRole('heading').click();
  await tool('text').click();
  await page.locator('#result').click();
  await tool('accept').click();
  await tool('value').click();
  await page.getByLabel('Email').click();
  await tool('value').click();
  await page.getByLabel('Accept terms').click();
  // The recorder writes its output on a timer; the close below flushes it.
  await page.close();
}

describe('stepdeck record (pinned Playwright recorder, real service)', () => {
  let service: Service;
  let site: Awaited<ReturnType<typeof startFormSite>>;
  let filesDir: string;
  const log: string[] = [];
  const settings = () => ({
    url: site.url,
    name: 'Recorded sign-up',
    parent: undefined,
    testId: undefined,
    strict: false,
    filesDir,
    browserPath: chromiumPath,
    json: false,
    apiKey: service.apiKey,
    baseUrl: service.url,
    projectId: service.projectId,
    branchId: undefined,
  });
  const session = (drive: (page: RecorderPage) => Promise<void>) => ({
    headless: true,
    args: chromiumArgs,
    drive,
  });

  async function runToEnd(testId: string) {
    // Recorded tests are drafts; a user activates one after reviewing it, and only active tests run.
    const activated = await service.api('POST', '/v1/tests/bulk-update-status', {
      testIds: [testId],
      status: 'active',
    });
    expect(activated.status).toBe(200);
    // Room for a loaded machine: the default 30 s is for the whole test, its steps together.
    const start = () =>
      service.api('POST', `/v1/tests/${testId}/remote-run`, { config: { timeout: 180_000 } });
    let started = await start();
    // A test runs at most once per 10 s (the spec's cooldown): on a fast machine the appended
    // test's run comes sooner than that after the first one.
    for (
      let tries = 0;
      started.status === 429 && /cooldown/.test(started.json.message) && tries < 3;
      tries++
    ) {
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      started = await start();
    }
    expect(started.status, JSON.stringify(started.json)).toBe(200);
    const runId = started.json.data.runId as string;
    return waitFor(
      `run ${runId}`,
      async () => {
        const { json } = await service.api('GET', `/v1/test-runs/${runId}`);
        return ['pending', 'queued', 'running'].includes(json.data.status) ? undefined : json.data;
      },
      240_000,
    );
  }

  beforeAll(async () => {
    // The Chromium the service's runs use (CHROMIUM_PATH, Playwright's, the system's or npm's):
    // a fresh machine has no /usr/bin/chromium.
    const resolved = await resolveChromium();
    if (!resolved.ok) throw new Error(resolved.problem);
    chromiumPath = resolved.browser.executablePath;
    [service, site] = await Promise.all([startService(), startFormSite()]);
    filesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-record-files-'));
    fs.writeFileSync(path.join(filesDir, 'avatar.png'), 'not really a png');
  }, 120_000);

  afterAll(async () => {
    await Promise.all([service?.stop(), site?.close()]);
    if (filesDir) fs.rmSync(filesDir, { recursive: true, force: true });
  });

  let createdId = '';

  it('records actions and assertions, maps them, saves a draft and the saved test passes when run', async () => {
    const result = await record(
      settings(),
      (line) => log.push(line),
      session((page) => actAsUser(page, path.join(filesDir, 'avatar.png'))),
    );
    const actions = result.mapped.steps.map((step) => step.action);
    expect(actions).toEqual([
      { name: 'goto', url: site.url },
      { name: 'fill', selector: 'internal:role=textbox[name="Email"i]', value: 'ada@example.com' },
      { name: 'press', selector: 'internal:role=textbox[name="Email"i]', key: 'Enter' },
      { name: 'fill', selector: 'internal:role=textbox[name="Search docs"i]', value: 'steps' },
      // The label's text includes the options' text: Playwright's own choice of locator.
      { name: 'selectOption', selector: 'internal:label="Plan FreePro"i', value: 'pro' },
      { name: 'check', selector: 'internal:role=checkbox[name="Accept terms"i]' },
      { name: 'uncheck', selector: 'internal:role=checkbox[name="Newsletter"i]' },
      { name: 'setInputFiles', selector: 'internal:role=button[name="Avatar"i]', files: ['avatar.png'] },
      { name: 'click', selector: 'internal:testid=[data-testid="submit"s]' },
      { name: 'click', selector: expect.stringMatching(/Item.*nth=1$/) },
      { name: 'dblclick', selector: 'internal:role=button[name="Double"i]' },
      // The iframe the recorder's selector entered is the step's frame.
      { name: 'click', selector: 'internal:role=button[name="Inner"i]', frame: expect.any(String) },
      { name: 'assertVisible', selector: 'internal:role=heading[name="Create your account"i]' },
      {
        name: 'assertText',
        selector: expect.any(String),
        value: 'Welcome ada@example.com on pro with terms without news and avatar.png',
        exact: false,
      },
      { name: 'assertValue', selector: 'internal:role=textbox[name="Email"i]', value: 'ada@example.com' },
      { name: 'assertChecked', selector: 'internal:role=checkbox[name="Accept terms"i]' },
    ]);
    // Named after the locator, as Playwright's JavaScript would write it.
    expect(result.mapped.steps[1]?.name).toBe("Fill getByRole('textbox', { name: 'Email' })");
    expect(result.mapped.unmapped).toEqual([{ action: 'click', reason: 'with Shift held' }]);
    expect(log).toContain('Not mapped: click (with Shift held)');
    expect(result.testId).toMatch(/^[0-9a-f-]{36}$/);
    createdId = result.testId ?? '';

    const { json: detail } = await service.api('GET', `/v1/tests/${createdId}`);
    expect(detail.test).toMatchObject({ name: 'Recorded sign-up', status: 'draft', parentTestId: null });
    expect(detail.steps.map((step: { action: { name: string } }) => step.action.name)).toEqual(
      actions.map((action) => action.name),
    );
    const { json: files } = await service.api('GET', `/v1/tests/${createdId}/files`);
    expect(files.data.map((file: { filename: string }) => file.filename)).toEqual(['avatar.png']);

    const run = await runToEnd(createdId);
    expect(run.status, JSON.stringify(run.report?.runTypeInfo, null, 1)).toBe('completed');
    expect(run.stats).toMatchObject({ passed: 1, failed: 0 });
  }, 300_000);

  it('--test-id appends after the test’s steps with its editVersion, and the test still passes', async () => {
    expect(createdId).not.toBe('');
    const before = await service.api('GET', `/v1/tests/${createdId}`);
    const result = await record(
      { ...settings(), name: undefined, testId: createdId },
      (line) => log.push(line),
      session(async (recorderPage) => {
        const page = recorderPage as Page;
        await page.getByRole('button', { name: 'Double' }).dblclick();
        await page.locator('x-pw-tool-item.text').click();
        await page.locator('#twice').click();
        await page.locator('x-pw-tool-item.accept').click();
        await page.close();
      }),
    );
    expect(result.testId).toBe(createdId);
    expect(result.mapped.unmapped).toEqual([]);
    const after = await service.api('GET', `/v1/tests/${createdId}`);
    const names = (detail: typeof after) =>
      detail.json.steps.map((step: { action: { name: string } }) => step.action.name);
    expect(names(after)).toEqual([...names(before), 'goto', 'dblclick', 'assertText']);
    expect(after.json.steps.at(-1).action).toMatchObject({ name: 'assertText', value: 'Twice' });
    // Only the steps changed: the name and the status the user gave it stay.
    expect(after.json.test).toMatchObject({ name: 'Recorded sign-up', status: 'active' });
    expect(after.json.test.editVersion).toBeGreaterThan(before.json.test.editVersion);
    const run = await runToEnd(createdId);
    expect(run.status, JSON.stringify(run.report?.runTypeInfo, null, 1)).toBe('completed');
  }, 300_000);

  it('--strict saves nothing when an action has no step, and names it', async () => {
    const before = await service.api('GET', '/v1/tests?limit=100');
    const result = await record(
      { ...settings(), name: 'Strict', strict: true },
      (line) => log.push(line),
      session(async (recorderPage) => {
        const page = recorderPage as Page;
        await page.locator('h1').click({ modifiers: ['Shift'] });
        await page.close();
      }),
    );
    expect(result.testId).toBeNull();
    expect(result.mapped.unmapped).toEqual([{ action: 'click', reason: 'with Shift held' }]);
    expect(log.at(-1)).toBe('--strict: 1 recorded action(s) have no step; no test saved.');
    const after = await service.api('GET', '/v1/tests?limit=100');
    expect(after.json.pagination).toEqual(before.json.pagination);
  }, 300_000);

  it('Ctrl-C closes the browser and saves nothing', async () => {
    const before = await service.api('GET', '/v1/tests?limit=100');
    await expect(
      record(
        { ...settings(), name: 'Interrupted' },
        (line) => log.push(line),
        session(async (recorderPage) => {
          await (recorderPage as Page).getByLabel('Email').fill('gone@example.com');
          process.emit('SIGINT');
        }),
      ),
    ).rejects.toThrow('recording cancelled (Ctrl-C): nothing saved');
    expect(process.listenerCount('SIGINT')).toBe(0);
    const after = await service.api('GET', '/v1/tests?limit=100');
    expect(after.json.pagination).toEqual(before.json.pagination);
  }, 300_000);

  it('refuses bad input before opening a browser (exit 2, every problem named)', async () => {
    const err: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string) => err.push(String(chunk)) > 0) as typeof process.stderr.write;
    try {
      const code = await recordMain(['ftp://x', '--test-id', 'nope'], { STEPDECK_API_KEY: 'k' });
      expect(code).toBe(2);
    } finally {
      process.stderr.write = write;
    }
    const text = err.join('');
    expect(text).toContain('the URL must start with http:// or https://, got "ftp://x"');
    expect(text).toContain('--test-id must be a UUID, got "nope"');
    expect(text).toContain('--base-url is required');
    expect(text).toContain('Usage: stepdeck record <url>');
  });
});
