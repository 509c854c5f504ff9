import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { configureIsolation } from '../../src/runner/executor.ts';
import { compileProject, executeProject } from '../../src/runner/index.ts';
import { isolationStatus } from '../../src/runner/isolation.ts';
import { releaseRunUid, takeRunUid } from '../../src/runner/run-uids.ts';
import { configureStandbyRunners, stopStandbyRunners, waitingStandbys } from '../../src/runner/standby.ts';
import { runTempRoot } from '../../src/runner/temp-root.ts';
import { until } from '../modules/runs/service-process.ts';
import {
  commandLine,
  descendantsOf,
  removeTempDirs,
  type Site,
  startSite,
  step,
  tempDir,
  uiTest,
} from './fixtures.ts';

/**
 * Isolation: a run reaches nothing but its own run. The file probes are written as code in the
 * run's spec, as a page that escaped Chromium (or a compiler bug) would run them: the step
 * vocabulary itself cannot read a file (runs-local-files.test.ts), so only the operating
 * system's boundary is tested here, and the same probes with isolation off show that they
 * would have succeeded.
 */

const root = process.getuid?.() === 0;

interface ProcessInfo {
  pid: number;
  uid: number;
  seccomp: number;
  userNamespace: string;
  command: string;
}

function info(pid: number): ProcessInfo | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return {
      pid,
      uid: Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]),
      seccomp: Number(/^Seccomp:\s+(\d+)/m.exec(status)?.[1] ?? 0),
      userNamespace: (() => {
        try {
          return readlinkSync(`/proc/${pid}/ns/user`);
        } catch {
          return '';
        }
      })(),
      command: commandLine(pid),
    };
  } catch {
    return null;
  }
}

/** A spec that runs `body` (Node code) in the Playwright worker, then waits `holdMs`. */
function codeTest(id: string, body: string, holdMs = 0) {
  const project = compileProject({
    tests: [{ ...uiTest(id, 'Probes', [step('Wait', { name: 'wait', ms: 1 })]), type: 'api' }],
    config: null,
    secretNames: [],
  });
  project.files.set(
    project.specFiles.get(id) as string,
    `import fs from 'node:fs';
import { test } from '@playwright/test';
test('Probes', { annotation: [{ type: 'stepdeck-test-id', description: '${id}' }] }, async () => {
  const probe = (what: string, read: () => string) => {
    try { return { what, read: read().slice(0, 200) }; } catch (error) { return { what, error: (error as NodeJS.ErrnoException).code ?? String(error) }; }
  };
  ${body}
  await new Promise((resolve) => setTimeout(resolve, ${holdMs}));
});
`,
  );
  return project;
}

describe('runner isolation', () => {
  let site: Site;
  let dataDir: string;
  const canary = `canary-${Math.random().toString(36).slice(2)}`;
  beforeAll(async () => {
    site = await startSite();
    // What the service keeps to itself: DATA_DIR is 0700 (process.ts closes it in uid mode).
    dataDir = await tempDir('isolation-data');
    await fs.chmod(dataDir, 0o700);
    writeFileSync(path.join(dataDir, 'stepdeck.sqlite'), `SQLite format 3 ${canary}`);
  });
  afterEach(async () => {
    await configureIsolation();
  });
  afterAll(async () => {
    await site?.close();
    await removeTempDirs();
  });

  it('runs the browser under the run’s own uid with Chromium’s sandbox on', async () => {
    const status = await configureIsolation();
    expect(status.mode).toBe(root ? 'uid' : 'sandbox');
    expect(status.sandbox).toBe(true);
    const dir = await tempDir('isolation-browser');
    const project = compileProject({
      tests: [
        uiTest('abababab-0000-4000-8000-0000000000c1', 'Holds a page', [
          step('Open', { name: 'goto', url: site.url }),
          step('Hold', { name: 'wait', ms: 5_000 }),
        ]),
      ],
      config: null,
      secretNames: [],
    });
    let onSpawn: (pid: number) => void = () => {};
    const spawned = new Promise<number>((resolve) => {
      onSpawn = resolve;
    });
    const run = executeProject({ dir, project, env: {}, signal: new AbortController().signal, onSpawn });
    const supervisor = await spawned;
    const processes = await until(
      () => {
        const found = descendantsOf(supervisor)
          .map(info)
          .filter((entry): entry is ProcessInfo => entry !== null);
        // Seccomp is engaged once the renderer has started: wait for one that has it.
        const sandboxed = found.some(
          (entry) => entry.command.includes('--type=renderer') && entry.seccomp === 2,
        );
        return sandboxed ? found : undefined;
      },
      30_000,
      'a renderer under seccomp',
    );
    const self = info(process.pid) as ProcessInfo;
    const supervisorInfo = info(supervisor) as ProcessInfo;
    const browser = processes.find((entry) =>
      entry.command.includes('--remote-debugging-pipe'),
    ) as ProcessInfo;
    const renderer = processes.find(
      (entry) => entry.command.includes('--type=renderer') && entry.seccomp === 2,
    ) as ProcessInfo;
    expect(browser, 'the browser process').toBeDefined();
    // Chromium's sandbox: no --no-sandbox, and the renderer in its own user namespace under seccomp.
    expect(browser.command).not.toContain('--no-sandbox');
    expect(renderer.seccomp).toBe(2);
    expect(renderer.userNamespace).not.toBe(self.userNamespace);
    if (root) {
      const [first, last] = status.uidRange as [number, number];
      for (const entry of [supervisorInfo, ...processes]) {
        expect(entry.uid, entry.command).toBeGreaterThanOrEqual(first);
        expect(entry.uid, entry.command).toBeLessThanOrEqual(last);
      }
    } else {
      expect(browser.uid).toBe(self.uid);
    }
    const result = await run;
    expect(result.status, result.log).toBe('passed');
    // Nothing of the run outlives it (its uid may already serve the next standby).
    const seen = [supervisorInfo, ...processes].map((entry) => entry.pid);
    await until(() => seen.every((pid) => info(pid) === null), 5_000, 'the run’s processes to end');
  }, 90_000);

  it.runIf(root)(
    'keeps DATA_DIR, the service’s environment and another run’s folder out of reach; with isolation off they are read',
    async () => {
      const probeRun = async () => {
        // A first run holds its folder (with a secret in its spec) while the second probes.
        const otherDir = await tempDir('isolation-other');
        const otherSecret = `other-run-${canary}`;
        const other = codeTest(
          'abababab-0000-4000-8000-0000000000c2',
          `fs.writeFileSync('secret.txt', ${JSON.stringify(otherSecret)});`,
          8_000,
        );
        const otherRun = executeProject({
          dir: otherDir,
          project: other,
          env: {},
          signal: new AbortController().signal,
        });
        await until(() => existsSync(path.join(otherDir, 'secret.txt')), 30_000, 'the other run');
        const dir = await tempDir('isolation-probe');
        const probes = codeTest(
          'abababab-0000-4000-8000-0000000000c3',
          `const results = [
    probe('DATA_DIR', () => fs.readdirSync(${JSON.stringify(dataDir)}).join(',')),
    probe('database', () => fs.readFileSync(${JSON.stringify(path.join(dataDir, 'stepdeck.sqlite'))}, 'utf8')),
    probe('service environment', () => fs.readFileSync('/proc/${process.pid}/environ', 'utf8')),
    probe('other run', () => fs.readFileSync(${JSON.stringify(path.join(otherDir, 'secret.txt'))}, 'utf8')),
  ];
  fs.writeFileSync('probes.json', JSON.stringify(results));`,
        );
        const result = await executeProject({
          dir,
          project: probes,
          env: {},
          signal: new AbortController().signal,
        });
        expect(result.status, result.log).toBe('passed');
        expect((await otherRun).status).toBe('passed');
        return JSON.parse(readFileSync(path.join(dir, 'probes.json'), 'utf8')) as Array<{
          what: string;
          read?: string;
          error?: string;
        }>;
      };

      const isolated = await probeRun();
      expect(isolated.map((probe) => [probe.what, probe.error])).toEqual([
        ['DATA_DIR', 'EACCES'],
        ['database', 'EACCES'],
        ['service environment', 'EACCES'],
        ['other run', 'EACCES'],
      ]);
      expect(JSON.stringify(isolated)).not.toContain(canary);

      // The same probes as the service's own user: each would have read what it aimed at.
      const status = await configureIsolation({ isolation: 'off', uidRange: [2_000_000_000, 2_000_009_999] });
      expect(status.mode).toBe('off');
      const open = await probeRun();
      expect(open.map((probe) => [probe.what, probe.error ?? 'read'])).toEqual([
        ['DATA_DIR', 'read'],
        ['database', 'read'],
        ['service environment', 'read'],
        ['other run', 'read'],
      ]);
      expect(open[0]?.read).toBe('stepdeck.sqlite');
      expect(open[1]?.read).toContain(canary);
      expect(open[2]?.read).toBe(readFileSync(`/proc/${process.pid}/environ`, 'utf8').slice(0, 200));
      expect(open[3]?.read).toContain(canary);
    },
    120_000,
  );

  it('runs a browser test when TMPDIR is 120 characters long', async () => {
    const long = path.join(os.tmpdir(), `stepdeck-long-tmp-${'x'.repeat(120)}`).slice(0, 120);
    mkdirSync(long, { recursive: true });
    const previous = process.env.TMPDIR;
    process.env.TMPDIR = long;
    try {
      expect(os.tmpdir()).toHaveLength(120);
      const dir = await tempDir('long-tmp');
      expect(dir.startsWith(long)).toBe(true);
      const project = compileProject({
        tests: [
          uiTest('abababab-0000-4000-8000-0000000000c4', 'Opens', [
            step('Open', { name: 'goto', url: site.url }),
            step('Heading', { name: 'assertText', selector: '#heading', value: 'Welcome' }),
          ]),
        ],
        config: null,
        secretNames: [],
      });
      const run = async (env: Record<string, string> = {}) =>
        executeProject({ dir, project, env, signal: new AbortController().signal });
      // A browser the run launches itself (another time zone than the one launched ahead): the
      // run's own TMPDIR, under the long one, is replaced by a short one.
      stopStandbyRunners();
      configureStandbyRunners({ idleMs: 0 });
      const alone = await run({ TZ: 'Asia/Tokyo' });
      expect(alone.status, alone.log).toBe('passed');
      // A runner that waited, started while TMPDIR was long, with the browser it launched ahead.
      configureStandbyRunners({ idleMs: 300_000 });
      expect((await run()).status).toBe('passed');
      await until(() => waitingStandbys().length > 0, 20_000, 'a runner waiting');
      const waited = await run();
      expect(waited.status, waited.log).toBe('passed');
      // Runs' and waiting runners' folders live in /tmp, short enough for Chromium's socket.
      expect(runTempRoot()).toBe('/tmp');
    } finally {
      configureStandbyRunners({ idleMs: 300_000 });
      if (previous === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = previous;
      await fs.rm(long, { recursive: true, force: true });
    }
  }, 90_000);

  it.runIf(root)('refuses a run folder its uid cannot enter, naming the folder in the way', async () => {
    await configureIsolation();
    // The folder right above a run folder is opened to the run's uid alone (the runner's work
    // folder holds the run's project); one further up is not the runner's to open.
    const privateParent = await tempDir('isolation-private');
    const dir = path.join(privateParent, 'work', 'run');
    mkdirSync(path.dirname(dir), { mode: 0o700 });
    const result = await executeProject({
      dir,
      project: codeTest('abababab-0000-4000-8000-0000000000c5', ''),
      env: {},
      signal: new AbortController().signal,
    });
    expect(result.status).toBe('runnerError');
    expect(result.runnerError).toMatch(
      new RegExp(
        `the run folder ${dir} is inside ${privateParent} \\(mode 0700\\), which the run's uid \\d+ cannot enter`,
      ),
    );
  });

  it.runIf(root)('probes user namespaces under a uid of the pool, which no ending run kills', async () => {
    // A run ending under the range's first uid kills every process of it (run-uids.ts);
    // the start-up probe must not be one of them (a CI run failed that way).
    const range: [number, number] = [2_000_009_990, 2_000_009_991];
    const held = takeRunUid(range);
    expect(held).toBe(range[0]);
    // Another process ending that uid's run over and over, as a parallel service would.
    const ending = spawn(process.execPath, [
      '--input-type=module',
      '-e',
      `import { killUid } from ${JSON.stringify(path.resolve('src/runner/run-uids.ts'))}; console.log('ready'); for (;;) killUid(${range[0]});`,
    ]);
    await new Promise((resolve) => ending.stdout.once('data', resolve));
    try {
      await configureIsolation({ isolation: 'on', uidRange: range });
      expect(isolationStatus()).toMatchObject({ mode: 'uid', sandbox: true, uidRange: range });
    } finally {
      ending.kill('SIGKILL');
      await releaseRunUid(range[0], []);
    }
  });

  it('says which mode it is in', async () => {
    await configureIsolation();
    expect(isolationStatus().warning === null).toBe(root);
  });
});
