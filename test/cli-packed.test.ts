import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDist, root, type Service, startService, startSite } from './e2e/harness.ts';

/**
 * The CLI installed the way CI users install tools: `npm pack` of the repository, then
 * `npm install` of that tarball into an empty folder with no workspace around it (no registry
 * needed: the package has no runtime dependencies, dist/cli bundles them), then `stepdeck`
 * from there against the real service.
 */
describe('the packed CLI installs and runs outside the repository', () => {
  let service: Service;
  let site: Awaited<ReturnType<typeof startSite>>;
  let work: string;
  let bin: string;

  beforeAll(async () => {
    ensureDist();
    [service, site] = await Promise.all([startService(), startSite()]);
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-packed-'));
    const packed = JSON.parse(
      execFileSync('npm', ['pack', '--json', '--pack-destination', work], { cwd: root, encoding: 'utf8' }),
    ) as Array<{ filename: string; files: Array<{ path: string }> }>;
    const tarball = path.join(work, packed[0]?.filename ?? '');
    const app = path.join(work, 'app');
    fs.mkdirSync(app);
    fs.writeFileSync(path.join(app, 'package.json'), '{"name":"ci-job","private":true}\n');
    execFileSync('npm', ['install', tarball, '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], {
      cwd: app,
      encoding: 'utf8',
    });
    bin = path.join(app, 'node_modules/.bin/stepdeck');
  }, 240_000);

  afterAll(async () => {
    if (work) fs.rmSync(work, { recursive: true, force: true });
    await Promise.all([service?.stop(), site?.close()]);
  });

  const cleanEnv = () =>
    Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !/^(GITHUB_|ACTIONS_|RUNNER_|STEPDECK_)/.test(name)),
    );

  it('the tarball lists no runtime dependency and installs without a registry', () => {
    const manifest = JSON.parse(
      fs.readFileSync(path.join(work, 'app/node_modules/stepdeck-action/package.json'), 'utf8'),
    ) as { dependencies?: Record<string, string> };
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(fs.existsSync(bin)).toBe(true);
  });

  it('stepdeck run --help', () => {
    const result = spawnSync(bin, ['run', '--help'], { cwd: work, env: cleanEnv(), encoding: 'utf8' });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain('Usage: stepdeck run [options]');
  });

  it('a real run: one JSON document on stdout, exit 1 on the failure, progress on stderr', async () => {
    const testId = await service.createTest({
      name: 'packed cli fails',
      steps: [
        { name: 'open', action: { name: 'goto', url: '/' } },
        { name: 'title', action: { name: 'assertText', selector: '#title', value: 'Not here' } },
      ],
    });
    const result = spawnSync(
      bin,
      [...['run', '--test-ids', testId, '--target-url', site.url, '--poll-interval-seconds', '1'], '--json'],
      {
        cwd: work,
        encoding: 'utf8',
        env: {
          ...cleanEnv(),
          STEPDECK_API_KEY: service.apiKey,
          STEPDECK_BASE_URL: service.url,
          STEPDECK_PROJECT_ID: service.projectId,
          RUNNER_DEBUG: '1',
        },
      },
    );
    expect(result.status, result.stderr).toBe(1);
    const json = JSON.parse(result.stdout);
    expect(json).toMatchObject({ status: 'failed', failed: 1, total: 1 });
    // `failed`, or `timedOut` when the missing text outlasts the test's timeout on a loaded machine.
    expect(json.results.tests[0]).toMatchObject({
      name: 'packed cli fails',
      status: expect.stringMatching(/^(failed|timedOut)$/),
    });
    expect(fs.existsSync(json['junit-path'])).toBe(true);
    expect(result.stderr).toContain('Started ');
    for (const text of [result.stdout, result.stderr]) {
      expect(text).not.toMatch(/^::/m);
      expect(text).not.toContain('signature=');
      expect(text).not.toContain(service.apiKey);
    }
  }, 240_000);

  it('stepdeck record without Playwright installed: one line saying how to get it, exit 2, nothing saved', () => {
    const before = fs.readdirSync(work);
    const result = spawnSync(bin, ['record', site.url, '--name', 'Recorded'], {
      cwd: work,
      encoding: 'utf8',
      env: {
        ...cleanEnv(),
        STEPDECK_API_KEY: service.apiKey,
        STEPDECK_BASE_URL: service.url,
        STEPDECK_PROJECT_ID: service.projectId,
      },
    });
    expect(result.status, result.stderr).toBe(2);
    expect(result.stderr).toBe(
      'stepdeck record: Playwright is not installed here: run `npm install --save-dev playwright`, then `npx playwright install chromium`\n',
    );
    expect(fs.readdirSync(work)).toEqual(before);
  });
});
