import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { pipeline, type Readable, type Transform } from 'node:stream';
import * as tar from 'tar';
import type { AppContext } from '../../context.ts';
import type { ExecutionResult } from '../../runner/executor.ts';
import { createRedactor } from '../../runner/redact.ts';
import {
  type ArtifactLimits,
  artifactCapError,
  defaultArtifactLimits,
  organizationQuotaLabel,
} from '../../runner/redact-run.ts';
import { ByteLimit, formatBytes, needlesOf, RedactingTransform } from '../../runner/redact-transforms.ts';
import { organizationQuotasOf } from '../accounts/public.ts';
import { addArtifactBytes, storedArtifactBytes } from './artifacts-repository.ts';
import type { RunRow } from './repository.ts';

/** Blob key of a run artifact. */
export const artifactKey = (runId: string, name: string) => `runs/${runId}/${name}`;

/** A test name as one safe path segment of a blob key. */
export function testFolder(name: string): string {
  const cleaned = Array.from(name, (char) =>
    char === '/' || char === '\\' || char.charCodeAt(0) < 32 ? '_' : char,
  )
    .join('')
    .trim();
  return cleaned === '' || cleaned === '.' || cleaned === '..' ? '_' : cleaned;
}

type RunRef = Pick<RunRow, 'id' | 'organizationId'>;

/**
 * The install's caps and what the run and its organization stored already: the executor
 * keeps the run's outputs within them (runner/redact-run.ts) and {@link storeWithinCaps}
 * checks every blob against them. The organization's artifact quota, when an install admin
 * set one, takes the place of `ORG_ARTIFACTS_MAX_BYTES`; its visual baselines count with its
 * run artifacts (a run's screenshots and diffs are run artifacts already).
 */
export async function artifactLimitsOf(ctx: AppContext, run: RunRef): Promise<ArtifactLimits> {
  const caps = ctx.config.artifactLimits ?? defaultArtifactLimits;
  const [stored, quotas, baselines] = await Promise.all([
    storedArtifactBytes(ctx.db, run),
    organizationQuotasOf(ctx.db, run.organizationId),
    ctx.runs.visualChecks?.storedBytes(run.organizationId) ?? 0,
  ]);
  return {
    entryMaxBytes: caps.entryMaxBytes,
    runMaxBytes: caps.runMaxBytes,
    runStoredBytes: stored.run,
    orgMaxBytes: quotas.artifactQuotaBytes ?? caps.orgMaxBytes,
    ...(quotas.artifactQuotaBytes !== null ? { orgMaxLabel: organizationQuotaLabel } : {}),
    orgStoredBytes: stored.organization + baselines,
  };
}

/**
 * Whether `bytes` more fit in the organization's artifact quota beside what it stored (run
 * artifacts and baselines): undefined when they do, else the refusal naming the quota, worded
 * as a run's is when it passes it.
 */
export async function organizationQuotaRefusal(
  ctx: AppContext,
  organizationId: string,
  bytes: number,
): Promise<string | undefined> {
  // No run is named: the run's own share is not asked for.
  const limits = await artifactLimitsOf(ctx, { id: '', organizationId });
  const stored = limits.orgStoredBytes ?? 0;
  if (limits.orgMaxBytes === undefined || stored + bytes <= limits.orgMaxBytes) return undefined;
  return artifactCapError(
    'org',
    limits,
    `stored ${formatBytes(stored)}, ${formatBytes(bytes)} more do not fit`,
  );
}

/** One blob to store: its name under `runs/<runId>/`, its size, and its bytes (read once). */
interface Upload {
  name: string;
  size: number;
  body: () => Buffer | Readable;
  contentType?: string;
}

/** A file's bytes, failing (never storing a partial blob's worth more) if it grew past `size`. */
function fileBody(file: string, size: number, ...through: Transform[]): () => Readable {
  return () => {
    const limit = new ByteLimit(size);
    pipeline([fs.createReadStream(file), ...through, limit], () => {});
    return limit;
  };
}

/**
 * Stores what fits under `RUN_ARTIFACTS_MAX_BYTES` and `ORG_ARTIFACTS_MAX_BYTES`, smallest
 * first (the log, the JSON report and screenshots before one large trace), and counts it for
 * the run (artifacts-repository.ts). Returns the runner error naming the cap when something
 * was left out. Each blob is stored whole or not at all (the blob stores write to a temporary
 * name, or abort the multipart upload).
 */
export async function storeWithinCaps(
  ctx: AppContext,
  run: RunRef,
  uploads: Upload[],
): Promise<string | undefined> {
  const limits = await artifactLimitsOf(ctx, run);
  const runStored = limits.runStoredBytes ?? 0;
  let runUsed = runStored;
  let orgUsed = limits.orgStoredBytes ?? 0;
  const orgMax = limits.orgMaxBytes ?? Number.POSITIVE_INFINITY;
  const fitting: Upload[] = [];
  const left: Array<{ name: string; cap: 'run' | 'org' }> = [];
  const ordered = [...uploads].sort(
    (a, b) => a.size - b.size || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
  for (const upload of ordered) {
    if (runUsed + upload.size > limits.runMaxBytes) left.push({ name: upload.name, cap: 'run' });
    else if (orgUsed + upload.size > orgMax) left.push({ name: upload.name, cap: 'org' });
    else {
      runUsed += upload.size;
      orgUsed += upload.size;
      fitting.push(upload);
    }
  }
  let stored = 0;
  const outcomes = await Promise.allSettled(
    fitting.map(async (upload) => {
      await ctx.blobs.put(artifactKey(run.id, upload.name), upload.body(), upload.contentType);
      stored += upload.size;
    }),
  );
  await addArtifactBytes(ctx.db, run, stored);
  const failed = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failed) throw failed.reason;
  if (left.length === 0) return undefined;
  const cap = left.some((entry) => entry.cap === 'run') ? 'run' : 'org';
  const named = left.slice(0, 5).map((entry) => entry.name);
  return artifactCapError(
    cap,
    limits,
    `stored ${formatBytes(runUsed - runStored)}, left out ${left.length} file(s): ${named.join(', ')}${left.length > named.length ? ', …' : ''}`,
  );
}

/**
 * Stores the run's artifacts. The executor has already rewritten its output files without the
 * secret values (traces and the HTML report included, see runner/redact-run.ts); the log and
 * the JSON report pass through the same values once more, as streams. Returns the runner
 * error when a cap left something out.
 */
export async function uploadArtifacts(
  ctx: AppContext,
  run: RunRef,
  result: ExecutionResult,
  secrets: Record<string, string>,
): Promise<string | undefined> {
  const redactor = createRedactor(Object.values(secrets));
  const log = Buffer.from(redactor.text(result.log ?? ''));
  const uploads: Upload[] = [{ name: 'test-run.log', size: log.length, body: () => log }];
  const jsonReportPath = result.jsonReportPath;
  const jsonStat = jsonReportPath ? await fsp.stat(jsonReportPath).catch(() => null) : null;
  if (jsonReportPath && jsonStat?.isFile())
    uploads.push({
      name: 'test-results.json',
      size: jsonStat.size,
      body: fileBody(
        jsonReportPath,
        jsonStat.size,
        new RedactingTransform(needlesOf(Object.values(secrets))),
      ),
    });
  const htmlReportDir = result.htmlReportDir;
  if (htmlReportDir && fs.existsSync(htmlReportDir)) {
    const archive = path.join(path.dirname(htmlReportDir), 'playwright-report.tar.gz');
    await tar.c({ gzip: true, cwd: htmlReportDir, file: archive, portable: true }, ['.']);
    const size = (await fsp.stat(archive)).size;
    uploads.push({ name: 'playwright-report.tar.gz', size, body: fileBody(archive, size) });
  }
  uploads.push(...(await testUploads(result.tests)));
  return storeWithinCaps(ctx, run, uploads);
}

/** Each test's own files (screenshots, traces, videos) under `tests/<name>/`. */
async function testUploads(tests: ExecutionResult['tests']): Promise<Upload[]> {
  const uploads: Upload[] = [];
  for (const test of tests) {
    for (const artifact of test.artifacts) {
      const file = path.basename(artifact.file || artifact.path);
      const stat = await fsp.stat(artifact.path).catch(() => null);
      if (stat?.isFile())
        uploads.push({
          name: `tests/${testFolder(test.name)}/${file}`,
          size: stat.size,
          body: fileBody(artifact.path, stat.size),
        });
    }
  }
  return uploads;
}

/** The result with a cap's runner error added (the run then fails), or as it was. */
export function withCapError(result: ExecutionResult, capError: string | undefined): ExecutionResult {
  if (!capError || result.runnerError?.includes(capError)) return result;
  return {
    ...result,
    status: 'runnerError',
    runnerError: result.runnerError ? `${result.runnerError}\n${capError}` : capError,
  };
}

/** A batch's per-test artifacts (a split run); returns the runner error when a cap left something out. */
export async function uploadTestArtifacts(
  ctx: AppContext,
  run: RunRef,
  tests: ExecutionResult['tests'],
): Promise<string | undefined> {
  return storeWithinCaps(ctx, run, await testUploads(tests));
}
