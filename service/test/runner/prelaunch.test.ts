import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveChromium } from '../../src/runner/browser.ts';
import { compileProject, executeProject } from '../../src/runner/index.ts';
import { configureStandbyRunners, stopStandbyRunners, waitingStandbys } from '../../src/runner/standby.ts';
import { until } from '../modules/runs/service-process.ts';
import {
  alive,
  commandLine,
  descendantsOf,
  environOf,
  parentOf,
  removeTempDirs,
  type Site,
  startSite,
  step,
  tempDir,
  uiTest,
} from './fixtures.ts';

/**
 * The browser a standby's waiting worker launches before its run (runner/prelaunch.ts): the
 * run's first test uses it, with the run's trace folder; a run that asks for another launch
 * gets its own browser and the waiting one is closed; each standby's folder (the browser's
 * HOME, TMPDIR and profile) goes with it, and those of a killed service with the next standby.
 */
describe('the browser launched while a standby waits', () => {
  let site: Site;
  /** The Chromium runs get here (CHROMIUM_PATH, the system's or the npm package's). */
  let chromium: string;
  beforeAll(async () => {
    const resolved = await resolveChromium();
    if (!resolved.ok) throw new Error(resolved.problem);
    chromium = resolved.browser.executablePath;
    site = await startSite();
    configureStandbyRunners({ idleMs: 5 * 60_000 });
  });
  afterAll(async () => {
    stopStandbyRunners();
    await site?.close();
    await removeTempDirs();
  });

  /**
   * Executes a one-test project; while it runs, notes the browsers under the process group it
   * was given and the files in the run's trace folder.
   */
  const execute = async (name: string, env: Record<string, string> = {}) => {
    const dir = await tempDir('prelaunch');
    const project = compileProject({
      tests: [
        uiTest('abababab-0000-4000-8000-0000000000d1', name, [
          step('Open', { name: 'goto', url: site.url }),
          step('Wait', { name: 'wait', ms: 1500 }),
          step('Check', { name: 'assertText', selector: '#heading', value: 'Welcome' }),
        ]),
      ],
      config: null,
      secretNames: [],
    });
    // The browsers seen under the run's process group, with the time zone each was started with.
    const seen = { group: 0, browsers: new Map<number, string | undefined>(), traceFiles: new Set<string>() };
    let polling = true;
    const poll = () => {
      if (!polling) return;
      for (const pid of browsersUnder(seen.group)) {
        if (seen.browsers.has(pid)) continue;
        try {
          seen.browsers.set(pid, environOf(pid).get('TZ'));
        } catch {
          // Gone already.
        }
      }
      const traces = path.join(dir, 'test-results', '.playwright-artifacts-0', 'traces');
      try {
        for (const file of readdirSync(traces)) seen.traceFiles.add(file);
      } catch {
        // Not there yet, or removed as the run ends.
      }
      setTimeout(poll, 50);
    };
    const result = await executeProject({
      dir,
      project,
      env: { CHROMIUM_PATH: chromium, ...env },
      signal: new AbortController().signal,
      onSpawn: (pid) => {
        seen.group = pid;
        poll();
      },
    }).finally(() => {
      polling = false;
    });
    return { dir, result, seen };
  };
  /**
   * Chromium's main processes under `root`: those Playwright launched. Their helpers carry the
   * same flags, with a `--type` once started (and, just forked, a Chromium for parent).
   */
  const isChromium = (pid: number) => commandLine(pid).includes('--remote-debugging-pipe');
  const browsersUnder = (root: number) =>
    (root ? descendantsOf(root) : []).filter(
      (pid) => isChromium(pid) && !commandLine(pid).includes('--type=') && !isChromium(parentOf(pid)),
    );
  /** A standby of this process with its browser up: its supervisor, folder and browser. */
  const waitingWithBrowser = async () => {
    const [supervisor] = await until(
      () => (waitingStandbys().length > 0 ? waitingStandbys() : undefined),
      15_000,
      'a standby runner',
    );
    const browser = await until(() => browsersUnder(supervisor as number)[0], 15_000, 'its browser');
    const home = environOf(browser).get('HOME') as string;
    return { supervisor: supervisor as number, browser, home };
  };

  it("gives the run's first test the Chromium launched while waiting, tracing into the run's folder", async () => {
    stopStandbyRunners();
    expect((await execute('Warm-up')).result.status).toBe('passed');
    const { supervisor, browser, home } = await waitingWithBrowser();
    // Launched in the standby's own folder, with its neutral environment.
    expect(path.basename(home)).toMatch(new RegExp(`^${process.pid}-`));
    expect(environOf(browser).get('TMPDIR')).toBe(home);
    expect(commandLine(browser)).toContain(home);

    const { result, seen } = await execute('Prelaunched');
    expect(result.status, result.log).toBe('passed');
    expect(seen.group).toBe(supervisor);
    // One browser served the run: the one that waited.
    expect([...seen.browsers.keys()]).toEqual([browser]);
    // The browser recorded its trace (retain-on-failure records every test) in the run's
    // folder, where Playwright Test told the worker to keep traces: its network log is there.
    expect([...seen.traceFiles].some((file) => file.endsWith('.network'))).toBe(true);
    // The standby's folder, profile and all, went with its process group.
    await until(() => !existsSync(home), 10_000, "the standby's folder to be removed");
    expect(alive([browser])).toEqual([]);
  }, 90_000);

  it('closes the waiting browser when the run launches another one, and launches that', async () => {
    const { supervisor, browser } = await waitingWithBrowser();
    // The same Chromium spelled another way: a different `executablePath` for Playwright.
    const other = `${path.dirname(chromium)}/./${path.basename(chromium)}`;
    const { result, seen } = await execute('Another browser', { CHROMIUM_PATH: other });
    expect(result.status, result.log).toBe('passed');
    // The run took the standby (its runner and worker), not its browser.
    expect(seen.group).toBe(supervisor);
    expect([...seen.browsers.keys()].filter((pid) => pid !== browser).length).toBeGreaterThan(0);
    expect(alive([browser])).toEqual([]);
  }, 90_000);

  it('closes the waiting browser when the run has another time zone, and launches its own', async () => {
    const { supervisor, browser } = await waitingWithBrowser();
    const { result, seen } = await execute('Another time zone', { TZ: 'Pacific/Chatham' });
    expect(result.status, result.log).toBe('passed');
    expect(seen.group).toBe(supervisor);
    const launched = [...seen.browsers].filter(([pid]) => pid !== browser);
    expect(launched.map(([, timeZone]) => timeZone)).toContain('Pacific/Chatham');
    expect(alive([browser])).toEqual([]);
  }, 90_000);

  it('launches Chromium ahead in the standbys refilled after an API-only run', async () => {
    // As on an install without CHROMIUM_PATH: the executor resolves the browser itself.
    const configured = process.env.CHROMIUM_PATH;
    delete process.env.CHROMIUM_PATH;
    try {
      stopStandbyRunners();
      const project = compileProject({
        tests: [
          uiTest(
            'abababab-0000-4000-8000-0000000000d2',
            'API only',
            [
              step('List', { name: 'request', method: 'GET', url: `${site.url}/api/items` }),
              step('OK', { name: 'assertStatus', value: 200 }),
            ],
            { type: 'api' },
          ),
        ],
        config: null,
        secretNames: [],
      });
      const result = await executeProject({
        dir: await tempDir('prelaunch-api'),
        project,
        env: {},
        signal: new AbortController().signal,
      });
      expect(result.status, result.log).toBe('passed');
      const { browser } = await waitingWithBrowser();
      expect(alive([browser])).toEqual([browser]);
    } finally {
      if (configured !== undefined) process.env.CHROMIUM_PATH = configured;
    }
  }, 90_000);

  it('removes the standby folders of a service that died, and keeps those of a live one', async () => {
    const { home } = await waitingWithBrowser();
    const parent = path.dirname(home);
    const dead = spawnSync('true').pid as number;
    const living = spawn('sleep', ['30']);
    const abandoned = path.join(parent, `${dead}-abandoned`);
    const kept = path.join(parent, `${living.pid}-kept`);
    for (const folder of [abandoned, kept]) mkdirSync(path.join(folder, 'profile'), { recursive: true });
    try {
      // The next standby started sweeps first.
      stopStandbyRunners();
      const { result } = await execute('Sweep');
      expect(result.status, result.log).toBe('passed');
      expect(existsSync(abandoned)).toBe(false);
      expect(existsSync(kept)).toBe(true);
    } finally {
      living.kill();
    }
  }, 90_000);
});
