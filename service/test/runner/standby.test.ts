import { readlinkSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileProject, executeProject } from '../../src/runner/index.ts';
import { configureStandbyRunners, stopStandbyRunners, waitingStandbys } from '../../src/runner/standby.ts';
import { until } from '../modules/runs/service-process.ts';
import {
  alive,
  commandLine,
  descendantsOf,
  environOf,
  removeTempDirs,
  type Site,
  startSite,
  step,
  tempDir,
  uiTest,
} from './fixtures.ts';

/**
 * Standby runners (runner/standby.ts): after a run, `playwright test` processes wait with
 * Playwright loaded and nothing of any run; the next run takes one and gets its own folder and
 * environment; the runner's stop ends them.
 */
describe('standby runners', () => {
  let site: Site;
  beforeAll(async () => {
    site = await startSite();
  });
  afterAll(async () => {
    configureStandbyRunners({ idleMs: 5 * 60_000 });
    stopStandbyRunners();
    await site?.close();
    await removeTempDirs();
  });

  const project = (name: string) =>
    compileProject({
      tests: [
        uiTest('abababab-0000-4000-8000-0000000000c1', name, [
          step('Open', { name: 'goto', url: site.url }),
          step('Secret', { name: 'fill', selector: '#name', value: '{{secrets.TOKEN}}' }),
          step('Check', { name: 'assertText', selector: '#mirror', value: 'standby-secret-value' }),
        ]),
      ],
      config: null,
      secretNames: ['TOKEN'],
    });
  const execute = async (name: string, onSpawn: (pid: number) => void = () => {}) => {
    const dir = await tempDir('standby');
    const result = await executeProject({
      dir,
      project: project(name),
      env: { STEPDECK_SECRET_TOKEN: 'standby-secret-value', STEPDECK_API_URL: 'http://127.0.0.1:1' },
      signal: new AbortController().signal,
      onSpawn,
    });
    return { dir, result };
  };

  it('runs the next run in a runner that waited, with nothing of a run before it, and that run’s own folder and environment', async () => {
    stopStandbyRunners();
    const first = await execute('First');
    expect(first.result.status).toBe('passed');
    // Refilled a second after the run ended, off its critical path.
    const [standby] = await until(
      () => (waitingStandbys().length > 0 ? waitingStandbys() : undefined),
      15_000,
      'a standby runner',
    );
    // Its runner and the test worker it forked while waiting (standby-worker-main.ts).
    const [runner, worker] = await until(
      () => {
        const group = descendantsOf(standby as number);
        const runner = group.find((pid) => commandLine(pid).includes('standby-runner-main'));
        const worker = group.find((pid) => commandLine(pid).includes('standby-worker-main'));
        return runner && worker ? [runner, worker] : undefined;
      },
      10_000,
      'the standby’s runner and worker processes',
    );
    // Waiting: nothing names a run, a secret or a project folder.
    for (const pid of [runner, worker]) {
      const waiting = environOf(pid);
      expect([...waiting.values()].join('\n')).not.toContain('standby-secret-value');
      expect(waiting.has('STEPDECK_SECRET_TOKEN')).toBe(false);
      expect(waiting.has('STEPDECK_API_URL')).toBe(false);
      expect(readlinkSync(`/proc/${pid}/cwd`)).not.toContain('stepdeck-standby-');
    }

    let spawned: number | undefined;
    let workerCwd: string | undefined;
    const second = await execute('Second', (pid) => {
      spawned = pid;
      // The worker takes the run's folder as it gets its job, before its test opens the page.
      until(
        () => {
          const cwd = readlinkSync(`/proc/${worker}/cwd`);
          return cwd.includes('stepdeck-standby-') ? cwd : undefined;
        },
        20_000,
        'the worker to take the run’s folder',
      ).then(
        (cwd) => {
          workerCwd = cwd;
        },
        () => {},
      );
    });
    // Passed: the secret reached the test (it filled it in and read it back).
    expect(second.result.status, second.result.log).toBe('passed');
    // The run was given to the runner that waited, and its test to the worker that waited.
    expect(spawned).toBe(standby);
    expect(waitingStandbys()).not.toContain(standby);
    expect(workerCwd).toBe(second.dir);
  }, 90_000);

  it('starts a runner of its own when the one waiting died, and the stop ends those waiting', async () => {
    const waiting = await until(
      () => (waitingStandbys().length > 0 ? waitingStandbys() : undefined),
      15_000,
      'a standby runner',
    );
    for (const pid of waiting) process.kill(-pid, 'SIGKILL');
    // Known dead (their exit seen) before the next run looks for one.
    await until(() => waitingStandbys().length === 0, 5_000, 'the killed standbys to leave the pool');
    let spawned: number | undefined;
    const run = await execute('After a death', (pid) => {
      spawned = pid;
    });
    expect(run.result.status, run.result.log).toBe('passed');
    expect(waiting).not.toContain(spawned);

    const refilled = await until(
      () => (waitingStandbys().length > 0 ? waitingStandbys() : undefined),
      15_000,
      'a standby runner',
    );
    const processes = refilled.flatMap((pid) => [pid, ...descendantsOf(pid)]);
    stopStandbyRunners();
    expect(waitingStandbys()).toEqual([]);
    await until(() => alive(processes).length === 0, 5_000, 'the standbys to end');
  }, 90_000);

  it('ends a standby unused for RUNNER_STANDBY_IDLE_SECONDS, and keeps none at 0', async () => {
    configureStandbyRunners({ idleMs: 2_000 });
    const run = await execute('Idle');
    expect(run.result.status, run.result.log).toBe('passed');
    const waiting = await until(
      () => (waitingStandbys().length > 0 ? waitingStandbys() : undefined),
      15_000,
      'a standby runner',
    );
    const processes = waiting.flatMap((pid) => [pid, ...descendantsOf(pid)]);
    // Refilled a second after the run; gone two seconds later, processes and all.
    await until(() => waitingStandbys().length === 0, 10_000, 'the idle standby to leave the pool');
    await until(() => alive(processes).length === 0, 5_000, 'the idle standby to end');

    configureStandbyRunners({ idleMs: 0 });
    const withNone = await execute('No standby');
    expect(withNone.result.status, withNone.result.log).toBe('passed');
    // Past the refill (a second after the run): nothing was started to wait.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(waitingStandbys()).toEqual([]);
  }, 90_000);
});
