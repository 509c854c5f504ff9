import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli-main.ts';
import { type Service, startService, startSite } from './e2e/harness.ts';

/**
 * The CLI (from source) against the real service (child process, SQLite, real Chromium): a
 * test with an `assertScreenshot` step and no baseline yet records a candidate each run until
 * it is approved. The run passes; the CLI counts the change, names the review page, and fails
 * only with `--visual-changes fail`.
 */
describe('visual changes through the CLI (real service)', () => {
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
      name: 'home looks right',
      steps: [
        { name: 'open', action: { name: 'goto', url: '/' } },
        { name: 'whole page', action: { name: 'assertScreenshot' } },
      ],
    });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-visual-'));
  }, 180_000);
  afterAll(async () => {
    await Promise.all([service?.stop(), site?.close()]);
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const cli = async (...extra: string[]) => {
    stdout = [];
    stderr = [];
    process.stdout.write = ((chunk: string) => stdout.push(String(chunk)) > 0) as typeof process.stdout.write;
    process.stderr.write = ((chunk: string) => stderr.push(String(chunk)) > 0) as typeof process.stderr.write;
    try {
      return await main(
        [
          'run',
          '--test-ids',
          testId,
          '--config',
          JSON.stringify({ retries: 0, use: { baseURL: site.url } }),
          '--artifacts',
          'none',
          '--artifacts-dir',
          dir,
          '--poll-interval-seconds',
          '1',
          ...extra,
        ],
        {
          STEPDECK_API_KEY: service.apiKey,
          STEPDECK_BASE_URL: service.url,
          STEPDECK_PROJECT_ID: service.projectId,
        },
      );
    } finally {
      process.stdout.write = write.out;
      process.stderr.write = write.err;
    }
  };
  const reviewPage = (runId: string) =>
    `${service.url}/console/projects/${service.projectId}/runs/${runId}/visual`;

  it('fails the command with visual-changes fail while the new screenshot awaits review', async () => {
    expect(await cli('--json', '--visual-changes', 'fail')).toBe(1);
    const document = JSON.parse(stdout.join(''));
    // The run itself passed: the first screenshot of a step is a candidate, not a failure.
    expect(document.status).toBe('passed');
    expect(document['visual-changes']).toBe(1);
    expect(stderr.join('')).toContain(
      `stepdeck: 1 visual change awaits review (0 changed, 1 new): ${reviewPage(document['run-id'])}`,
    );
  }, 180_000);

  it('only warns by default, says the change in the text summary, and is silent with ignore', async () => {
    expect(await cli()).toBe(0);
    const runId = (stdout.join('').match(/runs\/([0-9a-f-]{36})/) as RegExpMatchArray)[1] as string;
    expect(stdout.join('')).toContain(
      `Visual: 1 visual change awaits review (0 changed, 1 new): ${reviewPage(runId)}`,
    );
    expect(stderr.join('')).toContain('stepdeck: 1 visual change awaits review');

    expect(await cli('--json', '--visual-changes', 'ignore')).toBe(0);
    expect(JSON.parse(stdout.join(''))['visual-changes']).toBe(1);
    expect(stderr.join('')).not.toContain('visual change');
  }, 180_000);
});
