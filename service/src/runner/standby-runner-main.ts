/**
 * A `playwright test` runner started before its run is known (see standby.ts):
 *
 *   node standby-runner-main.ts <cli.js>
 *
 * spawned under the supervisor like any run, with file descriptor 3 a pipe from the service.
 * It loads Playwright's runner at once (Node's start and Playwright's modules: what a run
 * would otherwise wait for before Playwright says "Running"), then reads one job from fd 3 — the run's
 * working directory, complete environment and arguments — and becomes that run's `playwright
 * test`, exactly as the command (same entry point, `program.parse`): one run per process, which
 * then exits as the command does. Its first test worker waits with it ({@link preforkWorker}).
 * Nothing of a run is known to this process before its job:
 * the environment it started with (PATH, caches, browsers path) holds no secret, and it is
 * replaced entirely by the job's before Playwright reads it or spawns its worker. When fd 3
 * closes without a job it exits; an unused standby is ended by the service (standby.ts), which
 * takes it out of its pool first, so a run is never handed one that is leaving.
 */
import childProcess, { type ChildProcess, type ForkOptions } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { adoptJob } from './adopt-job.ts';
import type { StandbyWorkerJob } from './standby-worker-main.ts';

export interface StandbyJob {
  cwd: string;
  env: Record<string, string>;
  /** The arguments after the CLI, e.g. `['test', '--config', …]`. */
  args: string[];
}

/** A spec as the compiler writes them (imports, a test, awaited steps). */
const warmUpSpec = `import { expect, test } from '@playwright/test';
import { Stepdeck } from '../stepdeck-runtime.ts';
test("warm up", { annotation: [{ type: "stepdeck-test-id", description: "t" }] }, async ({ page }, testInfo) => {
  const sd = new Stepdeck(testInfo, { vars: {}, parameters: {} });
  await sd.step(sd.root, "open", null, async (s1: unknown) => {
    await expect(page.locator(sd.t("#t"))).toContainText(sd.t("text"));
  });
  sd.finish();
});
`;

const [cli] = process.argv.slice(2);
if (!cli) {
  process.stderr.write('usage: standby-runner-main.ts <cli.js>\n');
  process.exit(2);
}

const playwright = createRequire(cli);
preforkWorker();
// What `cli.js` requires first: the whole runner behind the `test` command.
const { program } = playwright('playwright/lib/program') as { program: { parse(argv: string[]): void } };
// Babel, which the runner loads for the first spec not in the transform cache (a test that
// ran in another folder, or changed): loaded and run once on a spec of the generated shape,
// so that neither its loading nor its first, slowest transform falls in the run.
try {
  const { babelTransform } = playwright('playwright/lib/transform/babelBundle') as {
    babelTransform(
      code: string,
      file: string,
      isModule: boolean,
      plugins: [],
      defineFields: boolean,
    ): unknown;
  };
  babelTransform(warmUpSpec, `${process.cwd()}/warm-up.spec.ts`, false, [], true);
} catch {
  // Only speed is lost: the run loads Babel itself.
}

const chunks: Buffer[] = [];
const jobs = fs.createReadStream('', { fd: 3 });
jobs.on('data', (chunk) => chunks.push(chunk as Buffer));
jobs.on('error', () => process.exit(0));
jobs.on('end', () => {
  if (chunks.length === 0) process.exit(0);
  const job = JSON.parse(Buffer.concat(chunks).toString('utf8')) as StandbyJob;
  adoptJob(job.env, job.cwd, playwright);
  program.parse([process.execPath, cli, ...job.args]);
});

/**
 * Forks Playwright's first test worker now (standby-worker-main.ts), so that it loads while
 * this runner waits, and hands it to the runner when it forks that worker: the runner's own
 * `fork` call, with the arguments it would have started the worker with, which the standby
 * worker takes as its own before it loads Playwright's worker entry. Any other fork (the
 * second worker, the loader, a changed Playwright) forks as usual.
 */
function preforkWorker(): void {
  const entry = path.join(
    path.dirname(playwright.resolve('playwright/package.json')),
    'lib/worker/workerProcessEntry.js',
  );
  const stdio: ForkOptions['stdio'] = ['ignore', 'pipe', 'pipe', 'ipc'];
  const fork = childProcess.fork;
  let standby: ChildProcess | undefined = fork(
    fileURLToPath(new URL('./standby-worker-main.ts', import.meta.url)),
    [entry],
    { detached: false, stdio },
  );
  standby.on('error', () => {});
  // Unused (a run that ends before its worker starts: no test matched, a config error), it
  // must not keep this runner from exiting.
  hold(standby, false);
  childProcess.fork = ((modulePath: string, ...rest: unknown[]) => {
    const options = rest.find(
      (arg): arg is ForkOptions => !!arg && typeof arg === 'object' && !Array.isArray(arg),
    );
    const waiting = standby;
    if (
      waiting?.connected &&
      modulePath === entry &&
      rest.length === 1 &&
      options?.detached === false &&
      JSON.stringify(options.stdio) === JSON.stringify(stdio)
    ) {
      standby = undefined;
      hold(waiting, true);
      const job: StandbyWorkerJob = {
        stepdeckWorkerJob: {
          env: { ...(options.env ?? process.env) },
          cwd: options.cwd?.toString() ?? process.cwd(),
        },
      };
      waiting.send(job);
      return waiting;
    }
    return (fork as (...args: unknown[]) => ChildProcess)(modulePath, ...rest);
  }) as typeof childProcess.fork;
}

/** Lets the standby worker keep this process alive (once handed to the run), or not. */
function hold(child: ChildProcess, held: boolean): void {
  const handles = [child, child.channel, child.stdout, child.stderr] as ({
    ref(): void;
    unref(): void;
  } | null)[];
  for (const handle of handles) {
    if (held) handle?.ref();
    else handle?.unref();
  }
}
