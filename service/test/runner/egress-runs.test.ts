import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveChromium } from '../../src/runner/browser.ts';
import { parseEgressRules } from '../../src/runner/egress.ts';
import { type EgressProxy, startEgressProxy } from '../../src/runner/egress-proxy.ts';
import { compileProject, executeProject } from '../../src/runner/index.ts';
import { configureStandbyRunners, stopStandbyRunners, waitingStandbys } from '../../src/runner/standby.ts';
import { until } from '../modules/runs/service-process.ts';
import {
  commandLine,
  descendantsOf,
  parentOf,
  removeTempDirs,
  type Site,
  startSite,
  step,
  tempDir,
  uiTest,
} from './fixtures.ts';

/**
 * With the runner's egress proxy running in this process, every run's Chromium goes
 * through it — the one a standby launched while waiting too, which a run only takes when it
 * was launched with exactly the compiled config's options (prelaunch.ts): the proxy among them.
 */
describe('runs through the egress proxy', () => {
  let site: Site;
  let chromium: string;
  let proxy: EgressProxy;
  beforeAll(async () => {
    const resolved = await resolveChromium();
    if (!resolved.ok) throw new Error(resolved.problem);
    chromium = resolved.browser.executablePath;
    site = await startSite();
    const sitePort = Number(new URL(site.url).port);
    proxy = await startEgressProxy({
      // The test's site stands for the service here: its port, on any address, is refused.
      deny: parseEgressRules(`127.0.0.1:${sitePort}`, 'RUNNER_EGRESS_DENY'),
      allow: parseEgressRules(`localhost:${sitePort}`, 'RUNNER_EGRESS_ALLOW'),
      ownPorts: () => [],
    });
    configureStandbyRunners({ idleMs: 5 * 60_000 });
  });
  afterAll(async () => {
    stopStandbyRunners();
    await proxy?.close();
    await site?.close();
    await removeTempDirs();
  });

  const isChromium = (pid: number) => commandLine(pid).includes('--remote-debugging-pipe');
  const browsersUnder = (root: number) =>
    (root ? descendantsOf(root) : []).filter(
      (pid) => isChromium(pid) && !commandLine(pid).includes('--type=') && !isChromium(parentOf(pid)),
    );

  const execute = async (name: string, url: string) => {
    const project = compileProject({
      tests: [
        uiTest('abababab-0000-4000-8000-0000000000e1', name, [
          step('Open', { name: 'goto', url }),
          step('Check', { name: 'assertText', selector: '#heading', value: 'Welcome' }),
        ]),
      ],
      config: null,
      secretNames: [],
    });
    const seen = { group: 0, browsers: new Set<number>() };
    let polling = true;
    const poll = () => {
      if (!polling) return;
      for (const pid of browsersUnder(seen.group)) seen.browsers.add(pid);
      setTimeout(poll, 50);
    };
    const result = await executeProject({
      dir: await tempDir('egress-run'),
      project,
      env: { CHROMIUM_PATH: chromium },
      signal: new AbortController().signal,
      onSpawn: (pid) => {
        seen.group = pid;
        poll();
      },
    }).finally(() => {
      polling = false;
    });
    return { result, seen };
  };

  it('takes the browser launched ahead, which goes through the proxy, and fails a refused navigation with the rule', async () => {
    const port = new URL(site.url).port;
    stopStandbyRunners();
    const warmUp = await execute('Warm-up', `http://localhost:${port}/`);
    expect(warmUp.result.status, warmUp.result.log).toBe('passed');
    const [supervisor] = await until(
      () => (waitingStandbys().length > 0 ? waitingStandbys() : undefined),
      15_000,
      'a standby runner',
    );
    const browser = await until(() => browsersUnder(supervisor as number)[0], 15_000, 'its browser');
    expect(commandLine(browser)).toContain(`--proxy-server=${proxy.url}`);

    const { result, seen } = await execute('Refused', `http://127.0.0.1:${port}/`);
    // The run took the waiting browser: launched with the options the config asks for.
    expect(seen.group).toBe(supervisor);
    expect([...seen.browsers]).toEqual([browser]);
    expect(result.status).toBe('failed');
    expect(result.tests[0]?.errorMessage).toBe(
      `Step "Open" (goto http://127.0.0.1:${port}/) failed\ngoto http://127.0.0.1:${port}/: blocked by the runner's egress rules: 127.0.0.1 port ${port} matches 127.0.0.1:${port} (RUNNER_EGRESS_DENY)`,
    );
  }, 120_000);
});
