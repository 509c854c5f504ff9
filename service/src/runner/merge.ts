import { type ChildProcess, fork, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { prepareRunnerCache, runnerCacheEnv } from './executor.ts';
import type { MergeReply, MergeRequest } from './merge-server-main.ts';

const require = createRequire(import.meta.url);

export interface MergedReports {
  jsonReportPath: string;
  htmlReportDir: string;
  durationMs: number;
}

/**
 * `playwright merge-reports` over the blob reports of an orchestrated run's batches: one
 * `test-results.json` and one HTML report, as an unsplit run writes them. The blobs were
 * redacted by each batch's executor, so the merged outputs hold no secret either.
 */
export async function mergeBlobReports(blobDir: string, outDir: string): Promise<MergedReports> {
  const started = Date.now();
  const jsonReportPath = path.join(outDir, 'test-results.json');
  const htmlReportDir = path.join(outDir, 'playwright-report');
  await fs.mkdir(outDir, { recursive: true });
  const cli = path.join(path.dirname(require.resolve('@playwright/test/package.json')), 'cli.js');
  const caches = runnerCacheEnv();
  const cached = await prepareRunnerCache(caches).then(
    () => true,
    () => false,
  );
  const env: Record<string, string> = {
    ...(cached ? caches : {}),
    PATH: process.env.PATH ?? '',
    HOME: outDir,
    PLAYWRIGHT_JSON_OUTPUT_FILE: jsonReportPath,
    PLAYWRIGHT_HTML_OUTPUT_DIR: htmlReportDir,
    PLAYWRIGHT_HTML_OPEN: 'never',
    FORCE_COLOR: '0',
    NO_COLOR: '1',
  };
  // Each batch ran in its own folder: the merge names one test directory for all of them
  // (Playwright refuses blobs recorded under different roots otherwise). The same file, at the
  // same path, for every merge: Playwright then takes its compiled form from the transform
  // cache instead of starting Babel for it.
  const configDir = cached ? mergeConfigDir(caches) : outDir;
  const mergeConfig = await writeMergeConfig(configDir);
  const request = { configFile: mergeConfig, blobDir, jsonReportPath, htmlReportDir };
  // The warm merge process when it answers; else (not startable, died, or the merge failed
  // there) the command, whose exit code and output name any real problem.
  const merged = await (cached ? mergeInServer(request) : Promise.reject()).then(
    () => true,
    () => false,
  );
  const code = merged ? 0 : await mergeCommand(cli, mergeConfig, blobDir, outDir, env);
  const written = await fs.stat(jsonReportPath).catch(() => null);
  if (code !== 0 || !written)
    throw new Error(
      `playwright merge-reports failed (exit ${typeof code === 'object' ? code.exit : code}): ${typeof code === 'object' ? code.output : ''}`,
    );
  return { jsonReportPath, htmlReportDir, durationMs: Date.now() - started };
}

/** `playwright merge-reports` as a command of its own: 0, or its exit code and output. */
async function mergeCommand(
  cli: string,
  mergeConfig: string,
  blobDir: string,
  outDir: string,
  env: Record<string, string>,
): Promise<0 | { exit: number | null; output: string }> {
  const output: string[] = [];
  const exit = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [cli, 'merge-reports', '--config', mergeConfig, '--reporter=json,html', blobDir],
      {
        cwd: outDir,
        env,
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString('utf8')));
    child.once('error', reject);
    child.once('exit', (exitCode) => resolve(exitCode));
  });
  return exit === 0 ? 0 : { exit, output: output.join('').slice(0, 2_000) };
}

/** How long the warm merge process stays up unused. */
const mergeServerIdleMs = 60_000;
/** How long one merge may take there before the process counts as stuck (100 tests: ~0.2 s). */
const mergeServerAnswerMs = 120_000;
const mergeServerScript = fileURLToPath(new URL('./merge-server-main.ts', import.meta.url));

interface MergeServer {
  child: ChildProcess;
  ready: Promise<void>;
  waiting: Map<number, { resolve: () => void; reject: (error: Error) => void }>;
}

let server: MergeServer | undefined;
let nextRequestId = 1;

/**
 * Starts this host's merge process if it is not up (merge-server-main.ts): Playwright loads
 * while the run's batches execute, so the run's merge does not wait for it. Each process
 * working on batches calls it; unused, it exits after a minute.
 */
export function warmMergeServer(): void {
  prepareRunnerCache(runnerCacheEnv())
    .then(() => mergeServer().ready)
    .catch(() => {});
}

function mergeServer(): MergeServer {
  if (server?.child.connected) return server;
  const waiting: MergeServer['waiting'] = new Map();
  const caches = runnerCacheEnv();
  const child = fork(mergeServerScript, [String(mergeServerIdleMs)], {
    // As the command's environment; each request names its outputs.
    env: {
      ...caches,
      PATH: process.env.PATH ?? '',
      HOME: mergeConfigDir(caches),
      FORCE_COLOR: '0',
      NO_COLOR: '1',
    },
    execArgv: [],
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
  });
  const current: MergeServer = {
    child,
    waiting,
    ready: new Promise<void>((resolve, reject) => {
      child.on('message', (message: MergeReply | { ready: true }) => {
        if ('ready' in message) return resolve();
        const entry = waiting.get(message.id);
        if (message.ok) entry?.resolve();
        else entry?.reject(new Error(message.error));
      });
      const gone = (error?: Error) => {
        const reason = error ?? new Error('the merge process exited');
        reject(reason);
        for (const entry of waiting.values()) entry.reject(reason);
        waiting.clear();
        if (server === current) server = undefined;
      };
      child.once('exit', () => gone());
      child.once('error', gone);
    }),
  };
  current.ready.catch(() => {});
  // Neither keeps this process alive: it exits with its parent (the channel closes).
  child.unref();
  child.channel?.unref();
  server = current;
  return current;
}

async function mergeInServer(request: Omit<MergeRequest, 'id'>): Promise<void> {
  const current = mergeServer();
  const id = nextRequestId++;
  let timer: NodeJS.Timeout | undefined;
  // Referenced while a merge waits for it (this process stays up for the answer), not otherwise.
  current.child.channel?.ref();
  try {
    await current.ready;
    await new Promise<void>((resolve, reject) => {
      current.waiting.set(id, { resolve, reject });
      // A merge process that stopped answering is replaced; the caller merges with the command.
      timer = setTimeout(() => {
        current.child.kill('SIGKILL');
        reject(new Error('the merge process did not answer'));
      }, mergeServerAnswerMs);
      current.child.send({ ...request, id } satisfies MergeRequest, (error) => {
        if (error) reject(error);
      });
    });
  } finally {
    clearTimeout(timer);
    current.waiting.delete(id);
    if (current.waiting.size === 0) current.child.channel?.unref();
  }
}

/** Where the shared merge config lives (next to the runner caches). */
const mergeConfigDir = (caches: Record<string, string>) =>
  path.join(path.dirname(caches.PLAYWRIGHT_TRANSFORM_CACHE_DIR ?? os.tmpdir()), 'merge');

const mergeConfigSource = `// Written by Stepdeck for playwright merge-reports.\nexport default { testDir: './tests' };\n`;

/** The merge config (`testDir` relative to it), written once per folder, atomically. */
async function writeMergeConfig(folder: string): Promise<string> {
  const file = path.join(folder, 'merge.config.mjs');
  const current = await fs.readFile(file, 'utf8').catch(() => null);
  if (current === mergeConfigSource) return file;
  await fs.mkdir(folder, { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.${Date.now()}`;
  await fs.writeFile(temporary, mergeConfigSource);
  await fs.rename(temporary, file);
  return file;
}

/** Ends this host's merge process now (the benchmark measures a merge that starts it). */
export function stopMergeServer(): void {
  server?.child.kill('SIGKILL');
  server = undefined;
}
