import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { root, type Service, startService, startSite, waitFor } from './e2e/harness.ts';

/**
 * GitHub's own debugger for JavaScript actions, `@github/local-action`, runs the action's main
 * step (src/main.ts's run()) and then its post step (src/post.ts's run()) from a .env file, as
 * the README tells users to, against the real service and real Chromium.
 */
describe('@github/local-action runs src/main.ts then src/post.ts', () => {
  let service: Service;
  let site: Awaited<ReturnType<typeof startSite>>;
  let work: string;
  let testId = '';

  beforeAll(async () => {
    [service, site] = await Promise.all([startService(), startSite()]);
    testId = await service.createTest({
      name: 'local-action page',
      steps: [
        { name: 'open', action: { name: 'goto', url: '/' } },
        { name: 'title', action: { name: 'assertText', selector: '#title', value: 'Hello Stepdeck' } },
      ],
    });
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-local-action-'));
  }, 180_000);

  afterAll(async () => {
    if (work) fs.rmSync(work, { recursive: true, force: true });
    await Promise.all([service?.stop(), site?.close()]);
  });

  /** `npx @github/local-action run . src/main.ts .env --post src/post.ts`; the outputs it reports. */
  async function localAction(inputs: Record<string, string>, extraEnv: Record<string, string> = {}) {
    const envFile = path.join(work, `${Object.keys(inputs).length}-${Date.now()}.env`);
    const summary = path.join(work, `summary-${Date.now()}.md`);
    fs.writeFileSync(summary, '');
    const lines = Object.entries({
      ...Object.fromEntries(
        Object.entries(inputs).map(([name, value]) => [`INPUT_${name.toUpperCase()}`, value]),
      ),
      GITHUB_STEP_SUMMARY: summary,
      RUNNER_TEMP: work,
      GITHUB_WORKFLOW: 'local',
      GITHUB_JOB: 'debug',
      ...extraEnv,
    }).map(([name, value]) => `${name}=${JSON.stringify(value)}`);
    fs.writeFileSync(envFile, `${lines.join('\n')}\n`);
    const base = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !/^(INPUT_|GITHUB_|ACTIONS_|RUNNER_|STATE_)/.test(name)),
    );
    const child = spawn(
      process.execPath,
      [
        path.join(root, 'node_modules/@github/local-action/bin/local-action.js'),
        ...['run', '.', 'src/main.ts', envFile, '--post', 'src/post.ts'],
      ],
      { cwd: root, env: { ...base, NO_COLOR: '1', FORCE_COLOR: '0' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    const outputs: Record<string, string> = {};
    for (const match of output.matchAll(/^::set-output name=([\w-]+)::(.*)$/gm))
      outputs[match[1] as string] = match[2] as string;
    return { code, output, outputs, summary: fs.readFileSync(summary, 'utf8') };
  }

  const inputs = () => ({
    'api-key': service.apiKey,
    'base-url': service.url,
    'project-id': service.projectId,
    'test-ids': testId,
    'target-url': site.url,
    'poll-interval-seconds': '1',
    'pr-comment': 'off',
  });

  it('wait: main step waits and reports, the post step finds nothing to cancel', async () => {
    const result = await localAction(inputs(), { RUNNER_DEBUG: '1', ACTIONS_STEP_DEBUG: 'true' });
    expect(result.code, result.output).toBe(0);
    expect(result.output).toContain('Running Action');
    expect(result.output).toContain('Running Post Step');
    expect(result.output).not.toContain('does not export a run() function');
    expect(result.outputs).toMatchObject({ status: 'passed', passed: '1', failed: '0', total: '1' });
    expect(result.outputs['run-url']).toBe(
      `${service.url}/console/projects/${service.projectId}/runs/${result.outputs['run-id']}`,
    );
    expect(JSON.parse(result.outputs.results ?? '{}')).toMatchObject({
      tests: [{ name: 'local-action page', status: 'passed' }],
    });
    expect(result.summary).toContain('local-action page');
    // Debug logging on: artifacts are named by key and size, never by their signed address.
    expect(result.output).toMatch(/Downloaded artifact \S+ \(\d+ bytes\)/);
    expect(result.output).not.toContain('signature=');
    expect(result.output).not.toContain('Job cancelled');
    const run = await service.api('GET', `/v1/test-runs/${result.outputs['run-id']}`);
    expect(run.json.data.status).toBe('completed');
  }, 240_000);

  it('fire-and-forget: main step triggers and returns, the post step leaves the run going', async () => {
    const result = await localAction({ ...inputs(), wait: 'false' });
    expect(result.code, result.output).toBe(0);
    expect(result.output).toContain('Running Post Step');
    expect(result.outputs).toMatchObject({ status: 'triggered' });
    expect(result.outputs['run-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(result.outputs.passed).toBeUndefined();
    expect(result.output).not.toContain('Job cancelled');
    // Not cancelled by the post step: it runs to its end.
    const status = await waitFor(
      'the run to end',
      async () => {
        const run = await service.api('GET', `/v1/test-runs/${result.outputs['run-id']}`);
        const value = run.json.data.status as string;
        return ['completed', 'failed', 'cancelled'].includes(value) ? value : undefined;
      },
      180_000,
    );
    expect(status).toBe('completed');
  }, 240_000);
});
