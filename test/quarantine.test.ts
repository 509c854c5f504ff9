import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli-main.ts';
import { type Service, startService, startSite, waitFor } from './e2e/harness.ts';

/**
 * The CLI (from source) against the real service (child process, SQLite, real Chromium): a
 * failing test fails the command until it is quarantined; then the command exits 0 and names
 * it, and the JSON counts no new failure.
 */
describe('quarantine and left-out tests through the CLI (real service)', () => {
  let service: Service;
  let site: Awaited<ReturnType<typeof startSite>>;
  let testId: string;
  let dir: string;
  let stdout: string[];
  let stderr: string[];
  const write = {
    out: process.stdout.write.bind(process.stdout),
    err: process.stderr.write.bind(process.stderr),
  };

  beforeAll(async () => {
    [service, site] = await Promise.all([startService(), startSite()]);
    testId = await service.createTest({
      name: 'checkout fails on purpose',
      steps: [
        { name: 'open', action: { name: 'goto', url: '/' } },
        { name: 'title', action: { name: 'assertText', selector: '#title', value: 'Goodbye Stepdeck' } },
      ],
    });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-quarantine-'));
  }, 180_000);
  afterAll(async () => {
    await Promise.all([service?.stop(), site?.close()]);
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const cli = async (...extra: string[]) => cliWith(['--test-ids', testId], ...extra);
  const cliWith = async (target: string[], ...extra: string[]) => {
    stdout = [];
    stderr = [];
    process.stdout.write = ((chunk: string) => stdout.push(String(chunk)) > 0) as typeof process.stdout.write;
    process.stderr.write = ((chunk: string) => stderr.push(String(chunk)) > 0) as typeof process.stderr.write;
    try {
      return await main(
        [
          'run',
          ...target,
          '--config',
          JSON.stringify({ retries: 0, use: { baseURL: site.url, actionTimeout: 1500 } }),
          '--artifacts',
          'none',
          '--artifacts-dir',
          dir,
          '--poll-interval-seconds',
          '1',
          '--label',
          'staging',
          ...extra,
        ],
        {
          STEPDECK_API_KEY: service.apiKey,
          STEPDECK_BASE_URL: service.url,
          STEPDECK_PROJECT_ID: service.projectId,
          GITHUB_SHA: 'd'.repeat(40),
          GITHUB_REF: 'refs/heads/main',
        },
      );
    } finally {
      process.stdout.write = write.out;
      process.stderr.write = write.err;
    }
  };

  it('fails with a new failure, then exits 0 naming the quarantined test', async () => {
    expect(await cli()).toBe(1);
    expect(stdout.join('')).toMatch(/✗ checkout fails on purpose \[new\]/);
    // History is written just after the run ends, beside the CLI's own reads.
    const history = await waitFor(
      'the run in the test history',
      async () => {
        const page = await service.api('GET', `/v1/tests/${testId}/history`);
        return page.json.data.length > 0 ? page : undefined;
      },
      10_000,
    );
    expect(history.json.data[0]).toMatchObject({
      status: 'failed',
      label: 'staging',
      commitSha: 'd'.repeat(40),
    });

    const put = await service.api('PUT', `/v1/tests/${testId}/quarantine`, {
      reason: 'checkout copy changes',
    });
    expect(put.status).toBe(200);
    // The per-test cooldown (429) is waited out by the client.
    expect(await cli('--json')).toBe(0);
    expect(stderr.join('')).toContain(
      'Quarantined, not failing the step: checkout fails on purpose (checkout copy changes)',
    );
    const document = JSON.parse(stdout.join(''));
    expect(document).toMatchObject({ status: 'failed', failed: 1, 'new-failures': 0 });
    expect(document.results.tests[0]).toMatchObject({
      name: 'checkout fails on purpose',
      triage: 'quarantined',
    });

    expect((await service.api('DELETE', `/v1/tests/${testId}/quarantine`)).status).toBe(200);
    expect(await cli()).toBe(1);
  }, 300_000);

  it('names the draft and archived tests a directory run leaves out', async () => {
    const suite = await service.createTest({ name: 'left-out suite', directory: true });
    const title = (name: string, status: string) => ({
      name,
      parentTestId: suite,
      status,
      steps: [
        { name: 'open', action: { name: 'goto', url: '/' } },
        { name: 'title', action: { name: 'assertTitle', value: 'E2E page' } },
      ],
    });
    await service.createTest(title('runs', 'active'));
    await service.createTest(title('still a draft', 'draft'));
    await service.createTest(title('retired', 'archived'));
    await cliWith(['--test-ids', suite]);
    expect(`${stdout.join('')}${stderr.join('')}`).toMatch(
      /left out 2 tests that are not active: (still a draft \(draft\), retired \(archived\)|retired \(archived\), still a draft \(draft\))\. Mark a test active in the console to include it\./,
    );
  }, 300_000);
});
