import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { RunArtifact, TestRunDetail } from '@stepdeck/contract';
import { request } from 'undici';
import type { StepdeckClient } from './client.ts';
import { isFailedTest, type Results } from './results.ts';

export interface Collected {
  /** Directory holding every downloaded file (one sub-directory per run). */
  dir: string;
  files: string[];
  /** HTML report of the first run that has one. */
  reportPath: string | undefined;
}

/** A storage key as a relative path that cannot escape its directory. */
export function safeRelativePath(key: string): string {
  const parts = key
    .split(/[\\/]+/)
    .map((part) => part.replace(/[^\w.\- ()@+=,]/g, '_'))
    .filter((part) => part && part !== '.' && part !== '..');
  return parts.length > 0 ? path.join(...parts) : 'artifact';
}

/** Keeps every artifact, or with `failed` only the per-test artifacts of failed tests. */
export function selectArtifacts(
  artifacts: readonly RunArtifact[],
  mode: 'all' | 'failed' | 'none',
  failedNames: ReadonlySet<string>,
): RunArtifact[] {
  if (mode === 'none') return [];
  if (mode === 'all') return [...artifacts];
  return artifacts.filter(
    (artifact) => artifact.testName !== undefined && failedNames.has(artifact.testName),
  );
}

/**
 * Downloads the runs' artifacts (presigned URLs, fetched without the API key) and their HTML
 * reports into `dir`.
 */
export async function collectArtifacts(
  client: StepdeckClient,
  runs: readonly TestRunDetail[],
  results: Results,
  options: {
    dir: string;
    mode: 'all' | 'failed' | 'none';
    log: (message: string) => void;
    /** Debug lines: the artifact's key and size, never its (signed) address. */
    debug?: (message: string) => void;
  },
): Promise<Collected> {
  const files: string[] = [];
  let reportPath: string | undefined;
  const failedNames = new Set(results.tests.filter(isFailedTest).map((test) => test.name));
  fs.mkdirSync(options.dir, { recursive: true });
  for (const run of runs) {
    const runDir = path.join(options.dir, run.id);
    fs.mkdirSync(runDir, { recursive: true });
    if (run.status === 'completed' || run.status === 'failed') {
      try {
        const file = path.join(runDir, 'report.html');
        fs.writeFileSync(file, await client.report(run.id));
        files.push(file);
        reportPath ??= file;
      } catch (error) {
        options.log(`No HTML report for run ${run.id}: ${(error as Error).message}`);
      }
    }
    if (options.mode === 'none') continue;
    const selected = selectArtifacts(await client.artifacts(run.id), options.mode, failedNames);
    for (const artifact of selected) {
      const file = path.join(runDir, safeRelativePath(artifact.key));
      fs.mkdirSync(path.dirname(file), { recursive: true });
      try {
        const bytes = await downloadSigned(artifact.url, file);
        files.push(file);
        options.debug?.(`Downloaded artifact ${artifact.key} (${bytes} bytes)`);
      } catch (error) {
        options.log(`Could not download artifact ${artifact.key}: ${(error as Error).message}`);
      }
    }
  }
  return { dir: options.dir, files, reportPath };
}

export class DownloadError extends Error {
  override name = 'DownloadError';
}

/**
 * Fetches a presigned URL into `file` (3 attempts on network errors and 5xx) and returns the
 * byte count. A signed URL is a credential for its lifetime: no message, log line or error
 * made here contains it (nor does anything else: no library that logs at debug level sees it).
 */
export async function downloadSigned(
  url: string,
  file: string,
  options: { attempts?: number; backoffMs?: number } = {},
): Promise<number> {
  const attempts = options.attempts ?? 3;
  let problem = '';
  for (let attempt = 1; attempt <= attempts; attempt++) {
    if (attempt > 1)
      await new Promise((resolve) => setTimeout(resolve, (options.backoffMs ?? 500) * 2 ** (attempt - 2)));
    let response: Awaited<ReturnType<typeof request>>;
    try {
      response = await request(url, { method: 'GET' });
    } catch (error) {
      problem = `network error (${(error as { code?: string }).code ?? (error as Error).name})`;
      continue;
    }
    if (response.statusCode >= 200 && response.statusCode < 300) {
      await pipeline(response.body, fs.createWriteStream(file));
      return fs.statSync(file).size;
    }
    await response.body.dump();
    problem = `HTTP ${response.statusCode}`;
    if (response.statusCode < 500) break;
  }
  throw new DownloadError(problem);
}

export interface Uploaded {
  id: number | undefined;
  url: string | undefined;
}

/** Uploads the collected files as one workflow artifact when the Actions runtime is present. */
export async function uploadArtifact(
  collected: Collected,
  options: { name: string; retentionDays: number | undefined; env?: NodeJS.ProcessEnv },
): Promise<Uploaded | undefined> {
  const env = options.env ?? process.env;
  if (!env.ACTIONS_RUNTIME_TOKEN || !env.ACTIONS_RESULTS_URL || collected.files.length === 0)
    return undefined;
  const { DefaultArtifactClient } = await import('@actions/artifact');
  const response = await new DefaultArtifactClient().uploadArtifact(
    options.name,
    collected.files,
    collected.dir,
    {
      ...(options.retentionDays ? { retentionDays: options.retentionDays } : {}),
    },
  );
  const url =
    response.id && env.GITHUB_SERVER_URL && env.GITHUB_REPOSITORY && env.GITHUB_RUN_ID
      ? `${env.GITHUB_SERVER_URL}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}/artifacts/${response.id}`
      : undefined;
  return { id: response.id, url };
}
