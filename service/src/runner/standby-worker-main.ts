/**
 * Playwright's test worker, forked by a standby runner (standby-runner-main.ts) before its run
 * is known:
 *
 *   node standby-worker-main.ts <worker entry>
 *
 * It loads playwright-core (its client, its browser launcher and the protocol: most of what a
 * worker loads before its first test), then waits on its IPC channel for one message, the
 * environment and working directory Playwright's runner would have started the worker with.
 * It takes them as its own, then loads Playwright's worker entry, which says "ready" to the
 * runner as a freshly forked worker does: from there it is that worker. Meanwhile it has
 * launched the Chromium its run's first test will likely use (prelaunch.ts). It reads nothing of
 * the run before that message, so while it waits it holds no secret (its environment is the
 * standby's neutral one); it exits when its runner goes away unused.
 */
import { createRequire } from 'node:module';
import { adoptJob } from './adopt-job.ts';
import { prelaunchBrowser } from './prelaunch.ts';

export interface StandbyWorkerJob {
  stepdeckWorkerJob: { env: Record<string, string | undefined>; cwd: string };
}

const [entry] = process.argv.slice(2);
if (!entry || !process.send) {
  process.stderr.write('usage: forked with an IPC channel, standby-worker-main.ts <worker entry>\n');
  process.exit(2);
}
const playwright = createRequire(entry);
// The bulk of a worker's loading (~0.25 s of CPU of ~0.3 s here), read nothing of the run:
// Playwright's own modules, which note the environment as they load, wait for the job.
playwright('playwright-core/lib/utilsBundle');
playwright('playwright-core/lib/coreBundle');
// And the run's Chromium, started in this standby's own folders (prelaunch.ts).
prelaunchBrowser(playwright);

const leave = () => process.exit(0);
process.on('disconnect', leave);
process.once('message', (message: StandbyWorkerJob) => {
  process.off('disconnect', leave);
  const { env, cwd } = message.stepdeckWorkerJob;
  adoptJob(env, cwd, playwright);
  process.argv[1] = entry;
  playwright(entry);
});
