import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { AppContext } from '../../context.ts';
import { slug } from '../../runner/compiler/index.ts';
import type { ExecutionResult } from '../../runner/executor.ts';
import { mergeBlobReports } from '../../runner/merge.ts';
import { loadProjectSecrets } from '../tests/public.ts';
import { uploadArtifacts, withCapError } from './artifacts.ts';
import { batchTestIds, doneBatches, batchWorkKey as workKey } from './batches-repository.ts';
import type { ClaimedUnit } from './queue/claim-batch-repository.ts';
import { endUnit, finishRun } from './queue/end-repository.ts';
import { findRun, runTests } from './repository.ts';

/**
 * The one merge step of an orchestrated run: `playwright merge-reports` over the batches'
 * blob reports gives the run's HTML report and `test-results.json`; the batches' mapped
 * results, in the run's test order, give `report`, stats and per-test rows, exactly as an
 * unsplit run writes them (finishRun, queue/end-repository.ts). The batches' scratch blobs are deleted afterwards.
 */
export async function mergeRun(ctx: AppContext, unit: ClaimedUnit, runnerId: string): Promise<void> {
  const run = await findRun(ctx.db, unit.runId);
  const holder = { ...unit, runnerId };
  if (run?.status !== 'running') {
    await endUnit(ctx.db, holder, 'cancelled', ctx.clock.now().toISOString());
    return;
  }
  const batches = await doneBatches(ctx.db, run.id);
  const members = await runTests(ctx.db, run.id);
  const order = new Map(members.map((member) => [member.testId, member.position]));
  const nameOf = new Map(members.map((member) => [member.testId, member.testName]));
  const workDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'stepdeck-merge-'));
  try {
    const blobDir = path.join(workDir, 'blobs');
    await fsp.mkdir(blobDir, { recursive: true });
    const logs: string[] = [];
    let blobCount = 0;
    for (const batch of batches) {
      // Streamed to disk: a batch's blob report holds its traces (up to RUN_ARTIFACTS_MAX_BYTES).
      const blob = await ctx.blobs.stream(workKey(run.id, `blob-${batch.position}.zip`));
      if (blob) {
        await pipeline(blob, fs.createWriteStream(path.join(blobDir, `report-${batch.position + 1}.zip`)));
        blobCount += 1;
      }
      const log = await ctx.blobs.get(workKey(run.id, `log-${batch.position}.log`));
      logs.push(`=== batch ${batch.position + 1} of ${batches.length} (${batch.slot ?? 'unknown slot'}) ===`);
      logs.push(log?.toString('utf8') ?? '');
    }
    const errors: string[] = [];
    for (const batch of batches) {
      const error = batch.parsed?.runnerError;
      if (!error) continue;
      const names = batchTestIds(batch).map((id) => nameOf.get(id) ?? id);
      errors.push(`batch of ${names.join(', ')}: ${error}`);
    }
    let merged: Awaited<ReturnType<typeof mergeBlobReports>> | undefined;
    if (blobCount > 0) {
      try {
        merged = await mergeBlobReports(blobDir, path.join(workDir, 'out'));
        logs.push(`merge-reports: ${blobCount} blob reports merged in ${merged.durationMs} ms`);
      } catch (error) {
        errors.push((error as Error).message);
      }
    }
    // As an unsplit run lists them: by spec file name (Playwright's order within a project);
    // the run's own order breaks ties (repetitions keep theirs: the sort is stable).
    const specOf = (testId: string) => `${slug(nameOf.get(testId) ?? '')}-${slug(testId, 8)}`;
    const tests = batches
      .flatMap((batch) => (batch.parsed?.tests ?? []) as ExecutionResult['tests'])
      .sort(
        (a, b) =>
          (specOf(a.testId) < specOf(b.testId) ? -1 : specOf(a.testId) > specOf(b.testId) ? 1 : 0) ||
          (order.get(a.testId) ?? 0) - (order.get(b.testId) ?? 0),
      );
    const failed = tests.filter((test) => test.status === 'failed' || test.status === 'timedOut').length;
    const stats = {
      passed: tests.filter((test) => test.status === 'passed' || test.status === 'flaky').length,
      failed,
      skipped: tests.filter((test) => test.status === 'skipped').length,
      total: tests.length,
    };
    const started = run.startedAt ? Date.parse(run.startedAt) : Date.now();
    const result: ExecutionResult = {
      status: errors.length > 0 ? 'runnerError' : failed > 0 ? 'failed' : 'passed',
      ...(errors.length > 0 ? { runnerError: errors.join('\n').slice(0, 8_000) } : {}),
      durationMs: Math.max(0, ctx.clock.now().getTime() - started),
      stats,
      tests,
      jsonReportPath: merged?.jsonReportPath ?? '',
      htmlReportDir: merged?.htmlReportDir ?? '',
      log: logs.join('\n'),
    };
    const secrets = await loadProjectSecrets(ctx.db, run.projectId);
    const capError = await uploadArtifacts(ctx, run, result, secrets);
    // Gone before the run reads as ended: a client never sees the scratch blobs behind it.
    await ctx.blobs
      .delete(`run-work/${run.id}/`)
      .catch((error: unknown) =>
        ctx.log.warn({ err: error, runId: run.id }, 'could not delete the batches\u2019 scratch blobs'),
      );
    await finishRun(ctx, run, withCapError(result, capError));
    await endUnit(ctx.db, holder, 'done', ctx.clock.now().toISOString());
  } finally {
    await fsp.rm(workDir, { recursive: true, force: true }).catch(() => {});
  }
}
