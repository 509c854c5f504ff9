import fs from 'node:fs/promises';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import type { JSONReport } from '@playwright/test/reporter';
import {
  defaultBrowsersPath,
  ffmpegProblem,
  findFfmpeg,
  prepareBrowsersPath,
  resolveChromium,
} from './browser.ts';
import type { CompiledProject } from './compiler/types.ts';
import { egressEnv } from './egress-proxy.ts';
import { handRunFolders, reclaim, sandboxEnv } from './isolation.ts';
import { descendants, killTree, signalAll } from './process-tree.ts';
import { type ArtifactLimits, type RedactSpawnOptions, redactRunOutputs } from './redact-run.ts';
import { type ExecutedTest, mapReport } from './report-map.ts';
import { redactor, redactTest, secretValues } from './result-redaction.ts';
import {
  isolationReady,
  linkPlaywright,
  PASS_ENV,
  playwrightPaths,
  prepareRunnerCache,
  runnerCacheEnv,
  runnerHome,
  writeProject,
} from './run-setup.ts';
import { killUid } from './run-uids.ts';
import { standbyHome, takeRunner } from './standby.ts';
import { fitsChromiumSocket, runTempRoot } from './temp-root.ts';

export { ffmpegDirName, findFfmpeg, prepareBrowsersPath } from './browser.ts';
export type { ExecutedArtifact, ExecutedTest, ExecutedTestStatus, VisualCheck } from './report-map.ts';
export {
  configureIsolation,
  linkPlaywright,
  prepareRunnerCache,
  runnerCacheEnv,
  runnerHome,
  writeProject,
} from './run-setup.ts';
export { configureStandbyRunners, stopStandbyRunners } from './standby.ts';

/**
 * Runs a compiled project with `playwright test` in a child process (its own process group),
 * with the JSON and HTML reporters, and maps the JSON report back to Stepdeck test ids.
 */

export interface ExecutionResult {
  status: 'passed' | 'failed' | 'runnerError';
  runnerError?: string;
  /** True when the signal ended the run (status is then `runnerError`). */
  cancelled?: boolean;
  durationMs: number;
  stats: { passed: number; failed: number; skipped: number; total: number };
  tests: ExecutedTest[];
  jsonReportPath: string;
  htmlReportDir: string;
  log: string;
}

export interface ExecuteOptions {
  /** The project directory (created when missing; the project's files are written into it). */
  dir: string;
  project: CompiledProject;
  /** Extra environment: `STEPDECK_SECRET_*`, `STEPDECK_API_URL`, `STEPDECK_API_KEY`, `CHROMIUM_PATH`... */
  env: Record<string, string>;
  signal: AbortSignal;
  /** Wall-clock limit of the whole run. */
  timeoutMs?: number;
  onLog?: (line: string) => void;
  /** Called with the Playwright process id once it started (it leads its own process group). */
  onSpawn?: (pid: number) => void;
  /** Where Playwright looks for browsers and ffmpeg (default `~/.cache/stepdeck/ms-playwright`). */
  browsersPath?: string;
  /** The ffmpeg linked in for video (default `FFMPEG_PATH`, else `/usr/bin/ffmpeg`). */
  ffmpegPath?: string;
  /** Writes a blob report there (for `playwright merge-reports`) instead of the HTML report. */
  blobDir?: string;
  /** Caps on the outputs kept (default: the settings' defaults, no organization cap; redact-run.ts). */
  artifactLimits?: ArtifactLimits;
  /** How the redaction child runs: the run's `uid`/`gid`, its `env` (default: PATH only); `cwd` is `dir`. */
  redactSpawnOptions?: RedactSpawnOptions;
}

const MAX_LOG_CHARS = 5_000_000;

const LAUNCH_FAILURE =
  /browserType\.launch|Executable doesn't exist|Failed to launch|Video rendering requires ffmpeg/;
export async function executeProject(options: ExecuteOptions): Promise<ExecutionResult> {
  const started = Date.now();
  const dir = path.resolve(options.dir);
  const jsonReportPath = path.join(dir, 'test-results.json');
  const htmlReportDir = path.join(dir, 'playwright-report');
  const redact = redactor(options.env);
  const logParts: string[] = [];
  let logSize = 0;
  const log = (line: string) => {
    const clean = redact(stripVTControlCharacters(line));
    if (logSize < MAX_LOG_CHARS) {
      logParts.push(clean);
      logSize += clean.length + 1;
    }
    options.onLog?.(clean);
  };
  const result = (
    status: ExecutionResult['status'],
    tests: ExecutedTest[],
    extra: Partial<ExecutionResult> = {},
  ): ExecutionResult => {
    const passed = tests.filter((test) => test.status === 'passed' || test.status === 'flaky').length;
    const failed = tests.filter((test) => test.status === 'failed' || test.status === 'timedOut').length;
    const skipped = tests.filter((test) => test.status === 'skipped').length;
    if (extra.runnerError) log(`runner error: ${extra.runnerError}`);
    return {
      status,
      durationMs: Date.now() - started,
      stats: { passed, failed, skipped, total: tests.length },
      tests,
      jsonReportPath,
      htmlReportDir,
      log: logParts.join('\n'),
      ...extra,
    };
  };
  const runnerError = (message: string, extra: Partial<ExecutionResult> = {}) =>
    result('runnerError', [], { runnerError: message, ...extra });

  if (options.signal.aborted)
    return runnerError('the run was cancelled before it started', { cancelled: true });
  // The runner decides isolation at start-up; a caller that did not (a library use, a test)
  // gets the default, proved here once.
  try {
    await isolationReady();
  } catch (error) {
    return runnerError((error as Error).message);
  }

  const childEnv: Record<string, string> = {};
  for (const key of PASS_ENV) {
    const value = process.env[key];
    if (value !== undefined) childEnv[key] = value;
  }
  Object.assign(childEnv, options.env);
  const home = runnerHome(dir);
  // Chromium puts its socket in TMPDIR: a run folder too deep for it (a long TMPDIR given to
  // the caller) gets a short one of its own (isolation.ts, runTempRoot), removed with the run.
  let shortTmp: string | null = null;
  if (!fitsChromiumSocket(home.TMPDIR)) {
    try {
      shortTmp = await fs.mkdtemp(path.join(runTempRoot(), 'stepdeck-tmp-'));
    } catch (error) {
      return runnerError((error as Error).message);
    }
    home.TMPDIR = shortTmp;
  }
  Object.assign(childEnv, home);

  try {
    await fs.mkdir(dir, { recursive: true });
    for (const own of Object.values(home)) await fs.mkdir(own, { recursive: true, mode: 0o700 });
    await writeProject(dir, options.project);
    await linkPlaywright(dir);
    await fs.rm(jsonReportPath, { force: true });
  } catch (error) {
    return runnerError(`could not prepare the project directory: ${(error as Error).message}`);
  }

  const browsersPath = path.resolve(options.browsersPath ?? defaultBrowsersPath());
  const ffmpegSource = options.ffmpegPath ?? findFfmpeg({ ...process.env, ...options.env });
  let ffmpeg: string | null;
  try {
    ffmpeg = await prepareBrowsersPath(browsersPath, ffmpegSource);
  } catch (error) {
    return runnerError(`could not prepare ${browsersPath}: ${(error as Error).message}`);
  }
  const requirements = options.project.requirements;
  if (requirements?.video && !ffmpeg) {
    return runnerError(ffmpegProblem({ ...process.env, ...options.env }));
  }
  // Resolved for every run (a few file checks; each binary's version is asked once): the
  // compiled config launches CHROMIUM_PATH when set, so the order resolveChromium follows
  // decides; and the standbys refilled after this run launch it ahead (standby.ts), an
  // API-only run's included.
  const chromium = await resolveChromium({ env: { ...process.env, ...childEnv }, browsersPath });
  if (chromium.ok) childEnv.CHROMIUM_PATH = chromium.browser.executablePath;
  else if (requirements?.browser) return runnerError(chromium.problem);

  const caches = runnerCacheEnv();
  // A cache that cannot be created only costs speed: Playwright and Node then compile as before.
  await prepareRunnerCache(caches).then(
    () => Object.assign(childEnv, caches),
    () => {},
  );
  Object.assign(childEnv, {
    PLAYWRIGHT_BROWSERS_PATH: browsersPath,
    PLAYWRIGHT_JSON_OUTPUT_FILE: jsonReportPath,
    PLAYWRIGHT_HTML_OUTPUT_DIR: htmlReportDir,
    PLAYWRIGHT_HTML_OPEN: 'never',
    ...(options.blobDir ? { PLAYWRIGHT_BLOB_OUTPUT_DIR: path.resolve(options.blobDir) } : {}),
    // Not NO_COLOR as well: Node warns in every worker that FORCE_COLOR overrides it.
    FORCE_COLOR: '0',
  });

  const { cli } = playwrightPaths();
  // A standby runner (Playwright loaded already) under a supervisor that ends the run's
  // processes if this process dies (standby.ts, supervisor.ts).
  const args = [
    'test',
    '--config',
    path.join(dir, 'playwright.config.ts'),
    `--reporter=list,json,${options.blobDir ? 'blob' : 'html'}`,
  ];
  // Chromium's own sandbox wherever runs are isolated (isolation.ts); off, Playwright adds --no-sandbox.
  Object.assign(childEnv, sandboxEnv());
  // The runner's egress proxy (egress-proxy.ts): the browser and `request` steps go through it.
  Object.assign(childEnv, egressEnv());
  let runner: ReturnType<typeof takeRunner>;
  try {
    runner = takeRunner(cli, childEnv, standbyHome());
  } catch (error) {
    return runnerError(`could not start the runner: ${(error as Error).message}`);
  }
  let takeBack: () => Promise<void>;
  try {
    takeBack = await handRunFolders(
      [dir, shortTmp, options.blobDir ? path.resolve(options.blobDir) : null],
      runner,
    );
  } catch (error) {
    return runnerError(`could not prepare the project directory: ${(error as Error).message}`);
  }
  try {
    return await supervise(runner);
  } finally {
    await takeBack();
  }

  async function supervise(runner: ReturnType<typeof takeRunner>): Promise<ExecutionResult> {
    runner.start({ cwd: dir, env: childEnv, args });
    const child = runner.child;
    if (child.pid !== undefined) options.onSpawn?.(child.pid);
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>(
      (resolve) => {
        child.once('exit', (code, signal) => resolve({ code, signal }));
        child.once('error', (error) => resolve({ code: null, signal: null, error }));
      },
    );
    // Subscribed now: 'close' (all output read) often comes right after 'exit', before the
    // clean-up below would get to listen for it.
    const closed = new Promise((resolve) => child.once('close', resolve));
    for (const stream of [child.stdout, child.stderr]) {
      let pending = '';
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => {
        pending += chunk;
        const lines = pending.split('\n');
        pending = lines.pop() ?? '';
        for (const line of lines) log(line);
      });
      stream?.on('end', () => {
        if (pending) log(pending);
        pending = '';
      });
    }

    const state: { stopReason: 'cancelled' | 'timeout' | null; killing: Promise<void> | null } = {
      stopReason: null,
      killing: null,
    };
    const stop = (reason: 'cancelled' | 'timeout') => {
      if (state.stopReason) return;
      state.stopReason = reason;
      state.killing = killTree(child, exited);
    };
    const onAbort = () => stop('cancelled');
    options.signal.addEventListener('abort', onAbort, { once: true });
    // A cancel that came while the project was being prepared fired no event for this listener.
    if (options.signal.aborted) onAbort();
    const timer = options.timeoutMs ? setTimeout(() => stop('timeout'), options.timeoutMs) : null;

    const exit = await exited;
    options.signal.removeEventListener('abort', onAbort);
    if (timer) clearTimeout(timer);
    if (state.killing) await state.killing;
    else if (child.pid !== undefined) {
      // Playwright closes its browsers; anything left over (a crashed worker's browser) goes too.
      const leftovers = await descendants(child.pid).catch(() => [] as number[]);
      if (leftovers.length > 0) signalAll(leftovers, child.pid, 'SIGKILL');
    }
    // With a uid of its own, nothing of the run outlives it, even a process that left its group.
    if (runner.uid !== null) killUid(runner.uid);
    // Let the pipes drain.
    let drainTimer: NodeJS.Timeout | undefined;
    await Promise.race([
      closed,
      new Promise((resolve) => {
        drainTimer = setTimeout(resolve, 500);
      }),
    ]);
    clearTimeout(drainTimer);

    if (state.stopReason === 'cancelled') return runnerError('the run was cancelled', { cancelled: true });
    // Traces record action parameters (fill values, request headers) and the HTML report embeds
    // traces and attachments: every output file loses the secret values before anyone reads it.
    // A child process of the run (as its uid when it has one) streams through them, never this
    // process, and keeps them within ARTIFACT_ENTRY_MAX_BYTES and the run's and organization's
    // caps (redact-run.ts): what passes a cap is left out with a note; the run then fails.
    let artifactsError: string | undefined;
    try {
      const outputs = await redactRunOutputs({
        paths: [
          jsonReportPath,
          path.join(dir, 'test-results'),
          htmlReportDir,
          ...(options.blobDir ? [options.blobDir] : []),
        ],
        secrets: secretValues(options.env),
        limits: options.artifactLimits,
        // As the run's uid: the owner of these files; it can read nothing else of the service's.
        spawnOptions: {
          cwd: dir,
          ...(runner.uid !== null ? { uid: runner.uid, gid: runner.uid } : {}),
          ...options.redactSpawnOptions,
        },
        signal: options.signal,
      });
      for (const note of outputs.notes) log(note);
      artifactsError = outputs.capError;
    } catch (error) {
      // Nothing unredacted may be stored: drop the outputs and report the failure.
      const blobOutputs = options.blobDir ? [options.blobDir] : [];
      for (const output of [jsonReportPath, path.join(dir, 'test-results'), htmlReportDir, ...blobOutputs])
        await fs.rm(output, { recursive: true, force: true }).catch(() => {});
      return runnerError(`could not redact secrets from the results: ${(error as Error).message}`);
    }
    // The run's files go back to the service before it reads them: no process of the run's uid
    // is left to swap one for a link, and links it left are dropped (isolation.ts, reclaim).
    if (runner.uid !== null) {
      await reclaim(dir);
      if (options.blobDir) await reclaim(path.resolve(options.blobDir));
    }
    if (state.stopReason === 'timeout') return runnerError(`the run timed out after ${options.timeoutMs} ms`);
    if (exit.error) return runnerError(`could not start Playwright: ${exit.error.message}`);

    let report: JSONReport;
    try {
      report = JSON.parse(await fs.readFile(jsonReportPath, 'utf8')) as JSONReport;
    } catch {
      const tail = logParts.slice(-20).join('\n');
      return runnerError(
        `Playwright ended (exit ${exit.code ?? exit.signal}) without a JSON report${tail ? `:\n${tail}` : ''}`,
      );
    }
    const testIdBySpec = new Map<string, string>();
    for (const [testId, spec] of options.project.specFiles) testIdBySpec.set(path.basename(spec), testId);
    const tests = mapReport(report, {
      dir,
      testIdBySpec,
      outlines: options.project.outlines ?? new Map(),
    }).map((test) => redactTest(test, redact));

    if (artifactsError) return result('runnerError', tests, { runnerError: artifactsError });
    const launchFailure = tests.find((test) => test.errorDetail && LAUNCH_FAILURE.test(test.errorDetail));
    if (launchFailure?.errorDetail) {
      const firstLines = launchFailure.errorDetail.split('\n').slice(0, 6).join('\n');
      return result('runnerError', tests, { runnerError: `the browser could not be started: ${firstLines}` });
    }
    if (report.errors.length > 0) {
      const message = redact(
        stripVTControlCharacters(
          report.errors.map((error) => error.message ?? String(error.value)).join('\n'),
        ),
      );
      return result('runnerError', tests, {
        runnerError: `Playwright reported an error: ${message.slice(0, 4_000)}`,
      });
    }
    if (tests.length === 0) return result('runnerError', tests, { runnerError: 'Playwright ran no tests' });
    const anyFailed = tests.some((test) => test.status === 'failed' || test.status === 'timedOut');
    return result(anyFailed ? 'failed' : 'passed', tests);
  }
}
