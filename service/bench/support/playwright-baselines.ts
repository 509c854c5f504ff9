/**
 * Playwright's own ways of running a compiled project over n processes, measured beside an
 * orchestrated run on the same bundle (bench/orchestrated.ts):
 * - static `--shard=i/n` in n processes, then `merge-reports` (what CI matrices do);
 * - one `playwright test --workers=n` with the spec files in longest-first order, so that its
 *   workers take them from one queue in the order an ideal scheduler would. Its tests' span
 *   (first start → last end) is what this machine needs for the tests alone, orchestration
 *   and start-up aside: the floor under any orchestrated wall here.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { mergeBlobReports } from '../../src/runner/merge.ts';

export interface PlaywrightCli {
  /** Playwright Test's `cli.js`. */
  cli: string;
  /** `PLAYWRIGHT_BROWSERS_PATH` (the browsers and ffmpeg the executor prepared). */
  browsersPath: string;
}

function playwrightTest(pw: PlaywrightCli, dir: string, args: string[], env: Record<string, string>) {
  return new Promise<void>((resolve) => {
    const child = spawn(process.execPath, [pw.cli, 'test', '--config', 'playwright.config.ts', ...args], {
      cwd: dir,
      stdio: 'ignore',
      env: { ...process.env, PLAYWRIGHT_BROWSERS_PATH: pw.browsersPath, ...env },
    });
    child.once('exit', () => resolve());
  });
}

/**
 * `playwright test --shard=i/n` in n processes side by side, then merge-reports; wall of each
 * part. Each shard writes its blob into a folder of its own, as on n CI machines (the blob
 * reporter empties its output folder when it ends: sharing one, only the last shard's report
 * would be left to merge), and the blobs are gathered for the merge.
 */
export async function staticShards(
  pw: PlaywrightCli,
  dir: string,
  shards: number,
): Promise<{ shardsMs: number; mergeMs: number }> {
  const blobDir = path.join(dir, 'blobs');
  const shardDir = (index: number) => path.join(dir, `blobs-${index + 1}`);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: shards }, (_, index) =>
      playwrightTest(pw, dir, ['--reporter=blob', `--shard=${index + 1}/${shards}`], {
        PLAYWRIGHT_BLOB_OUTPUT_DIR: shardDir(index),
        PLAYWRIGHT_BLOB_OUTPUT_NAME: `report-${index + 1}.zip`,
      }),
    ),
  );
  const shardsMs = performance.now() - started;
  fs.mkdirSync(blobDir, { recursive: true });
  for (let index = 0; index < shards; index += 1)
    for (const file of fs.readdirSync(shardDir(index)))
      fs.renameSync(path.join(shardDir(index), file), path.join(blobDir, file));
  if (fs.readdirSync(blobDir).length !== shards) throw new Error(`expected ${shards} blob reports`);
  const merged = await mergeBlobReports(blobDir, path.join(dir, 'merged'));
  return { shardsMs, mergeMs: merged.durationMs };
}

interface JsonSuite {
  specs?: { tests: { results: { startTime: string; duration: number; status: string }[] }[] }[];
  suites?: JsonSuite[];
}

/**
 * One `playwright test --workers=n` over the bundle in `dir`, its spec files renamed so that
 * they sort longest first by `expectedMs(file)` (Playwright queues files in name order, and
 * each compiled spec holds one test). Returns the process's wall, its tests' span and the sum
 * of their own durations; `env` is added to the process's (`CHROMIUM_PATH`, for one).
 */
export async function ownWorkersLongestFirst(
  pw: PlaywrightCli,
  dir: string,
  workers: number,
  expectedMs: (specFile: string) => number,
  env: Record<string, string> = {},
): Promise<{ wallMs: number; testsSpanMs: number; tests: number; testsMs: number }> {
  const testsDir = path.join(dir, 'tests');
  const specs = fs.readdirSync(testsDir).filter((file) => file.endsWith('.spec.ts'));
  const ordered = [...specs].sort((a, b) => expectedMs(b) - expectedMs(a));
  const width = String(ordered.length).length;
  for (const [rank, file] of ordered.entries())
    fs.renameSync(
      path.join(testsDir, file),
      path.join(testsDir, `${String(rank).padStart(width, '0')}-${file}`),
    );
  const jsonPath = path.join(dir, 'own-workers.json');
  const started = performance.now();
  await playwrightTest(pw, dir, ['--reporter=json', `--workers=${workers}`], {
    ...env,
    PLAYWRIGHT_JSON_OUTPUT_FILE: jsonPath,
  });
  const wallMs = performance.now() - started;
  const spans: { start: number; end: number }[] = [];
  const walk = (suite: JsonSuite) => {
    for (const spec of suite.specs ?? [])
      for (const result of spec.tests.flatMap((test) => test.results)) {
        // A test that failed (a browser that did not start, say) would make a floor too low.
        if (result.status !== 'passed') throw new Error(`a test of Playwright's own run ${result.status}`);
        const start = Date.parse(result.startTime);
        spans.push({ start, end: start + result.duration });
      }
    for (const child of suite.suites ?? []) walk(child);
  };
  for (const suite of (JSON.parse(fs.readFileSync(jsonPath, 'utf8')) as JsonSuite).suites ?? []) walk(suite);
  if (spans.length !== specs.length) throw new Error(`expected ${specs.length} results, got ${spans.length}`);
  const testsSpanMs = Math.max(...spans.map((s) => s.end)) - Math.min(...spans.map((s) => s.start));
  const testsMs = spans.reduce((sum, span) => sum + span.end - span.start, 0);
  return { wallMs, testsSpanMs, tests: spans.length, testsMs };
}
