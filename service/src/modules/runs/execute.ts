import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type RunConfig, resolveRunConfig } from '@stepdeck/contract';
import * as tar from 'tar';
import { fromJson, toJson } from '../../adapters/db/index.ts';
import type { AppContext, RunFinished } from '../../context.ts';
import { secretEnvVar } from '../../runner/compiler/index.ts';
import { createRedactor } from '../../runner/redact.ts';
import { issueRunInboxAccess } from '../inboxes/index.ts';
import { compiler, type ExecutionResult, executor, tests as testsModule } from './deps.ts';
import { recordProcessGroup, recordRunProcess, releaseRunProcess } from './processes.ts';
import { concurrencyCapOf, findRun, type RunRow, runTests } from './repository.ts';
import { runtimeOf } from './runtime.ts';

const heartbeatMs = 500;

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

/** Executes one claimed (`queued`) run to its end; a cancel at any point stops it. */
export async function executeRun(ctx: AppContext, runId: string, runnerId: string): Promise<void> {
  const runtime = runtimeOf(ctx);
  const controller = new AbortController();
  runtime.aborts.set(runId, controller);
  let cancelled = false;
  // One heartbeat query at a time; the last one is awaited before the run lets go of the
  // database, so closing the app never leaves a query in flight.
  let beating: Promise<void> | undefined;
  const beat = setInterval(() => {
    if (beating) return;
    beating = (async () => {
      const row = await ctx.db
        .selectFrom('runs')
        .select(['status'])
        .where('id', '=', runId)
        .executeTakeFirst();
      if (!row || row.status === 'cancelled') {
        cancelled = true;
        controller.abort(new Error('Run cancelled'));
        return;
      }
      await ctx.db
        .updateTable('runs')
        .set({ heartbeatAt: Date.now() })
        .where('id', '=', runId)
        .where('runnerId', '=', runnerId)
        .execute();
    })()
      .catch(() => {})
      .finally(() => {
        beating = undefined;
      });
  }, heartbeatMs);
  beat.unref();
  controller.signal.addEventListener('abort', () => {
    if (String((controller.signal.reason as Error | undefined)?.message).includes('cancel')) cancelled = true;
  });

  let workDir: string | undefined;
  try {
    const started = await ctx.db
      .updateTable('runs')
      .set({ status: 'running', startedAt: ctx.clock.now().toISOString(), heartbeatAt: Date.now() })
      .where('id', '=', runId)
      .where('status', '=', 'queued')
      .executeTakeFirst();
    if (Number(started.numUpdatedRows) !== 1) return;
    const run = await findRun(ctx.db, runId);
    if (!run) return;
    workDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'stepdeck-run-'));
    await recordRunProcess(ctx, runId, runnerId, workDir);
    const result = await compileAndExecute(ctx, run, workDir, controller.signal);
    if (cancelled || controller.signal.aborted) return;
    await uploadArtifacts(ctx, run, result.result, result.secrets);
    await finishRun(ctx, run, result.result);
  } catch (error) {
    if (cancelled) return;
    const message = error instanceof Error ? error.message : String(error);
    await failRun(ctx, runId, `Runner failed: ${message}`, ['running', 'queued']);
  } finally {
    clearInterval(beat);
    await beating;
    runtime.aborts.delete(runId);
    if (workDir) {
      await fsp.rm(workDir, { recursive: true, force: true }).catch(() => {});
      await releaseRunProcess(ctx.db, runId).catch((error: unknown) =>
        ctx.log.warn({ err: error, runId }, 'could not release the run process record'),
      );
    }
  }
}

async function compileAndExecute(ctx: AppContext, run: RunRow, workDir: string, signal: AbortSignal) {
  const members = await runTests(ctx.db, run.id);
  const executable = await testsModule();
  const compilable = await executable.loadCompilableTests(ctx.db, ctx.blobs, {
    projectId: run.projectId,
    branchId: run.branchId,
    testIds: members.map((member) => member.testId),
  });
  const secrets = await executable.loadProjectSecrets(ctx.db, run.projectId);
  const overrides = fromJson<RunConfig>(run.config, {});
  const cap = await concurrencyCapOf(ctx.db, run.organizationId);
  // Overrides layer over each test's own config; the compiler groups tests by the result.
  const merged = compilable.map((test) => ({
    ...test,
    config: effectiveConfig(test.config as RunConfig, overrides, cap) as Record<string, unknown>,
  }));
  const resolvedAll = merged.map((test) => resolveRunConfig(test.config as RunConfig));
  const { compileProject } = await compiler();
  const project = await compileProject({
    tests: merged,
    config: null,
    secretNames: Object.keys(secrets),
  });

  // The compiled project as a bundle: generated code only, secrets stay in the environment.
  const bundleDir = path.join(workDir, 'bundle');
  for (const [relative, content] of project.files) {
    const target = path.join(bundleDir, relative);
    await fsp.mkdir(path.dirname(target), { recursive: true });
    await fsp.writeFile(target, content);
  }
  const bundleFile = path.join(workDir, 'bundle.tgz');
  // Packed and stored while the browser runs: the run does not wait for it to start.
  const bundleStored = (async () => {
    await tar.c(
      { gzip: true, cwd: bundleDir, file: bundleFile, portable: true },
      await fsp.readdir(bundleDir),
    );
    await ctx.blobs.put(
      artifactKey(run.id, 'bundle.tgz'),
      fs.createReadStream(bundleFile),
      'application/gzip',
    );
  })();
  // Settled below; a rejection must not go unhandled while the run executes.
  bundleStored.catch(() => {});

  // The service URL reaches email steps through the environment, like the secrets, so the
  // bundle is byte for byte the project `POST /v1/tests/export` (format pw) produces.
  const env: Record<string, string> = { STEPDECK_API_URL: ctx.config.publicUrl };
  for (const [name, value] of Object.entries(secrets)) env[secretEnvVar(name)] = value;
  const perTest = resolvedAll.reduce(
    (sum, config) => sum + Math.max(config.timeout, 30_000) * (config.retries + 1) * config.repeatEach,
    0,
  );
  const timeoutMs = Math.min(perTest + 120_000, 6 * 3600_000);
  const { executeProject } = await executor();
  // Email steps poll the inbox API with a per-run emailInbox:read key, deleted when the run ends.
  const inbox = await issueRunInboxAccess(ctx.db, ctx.clock, {
    organizationId: run.organizationId,
    runId: run.id,
    apiUrl: ctx.config.publicUrl,
    tests: compilable,
  });
  const result = await executeProject({
    dir: path.join(workDir, 'project'),
    project,
    env: { ...env, ...inbox.env },
    signal,
    timeoutMs,
    onSpawn: (pid) => {
      // The supervisor leads the run's process group (its pid is the group id).
      recordProcessGroup(ctx.db, run.id, pid).catch((error: unknown) =>
        ctx.log.warn({ err: error, runId: run.id }, 'could not record the run process group'),
      );
    },
  }).finally(() => inbox.release());
  await bundleStored;
  const inboxKey = inbox.env.STEPDECK_API_KEY;
  return { result, secrets: inboxKey ? { ...secrets, STEPDECK_API_KEY: inboxKey } : secrets };
}

/** A test's config with the run's overrides on top: always headless, workers within the cap. */
export function effectiveConfig(
  testConfig: RunConfig | null | undefined,
  overrides: RunConfig,
  cap: number,
): RunConfig {
  const base = testConfig ?? {};
  const merged: RunConfig = {
    ...base,
    ...overrides,
    use: { ...base.use, ...overrides.use, headless: true },
    viewport: { ...base.viewport, ...overrides.viewport },
  };
  if (merged.workers !== undefined) merged.workers = Math.max(1, Math.min(merged.workers, cap));
  return merged;
}

/**
 * Stores the run's artifacts. The executor has already rewritten its output files without the
 * secret values (traces and the HTML report included, see runner/redact.ts); the log and the
 * JSON report pass through the same redactor once more as text.
 */
async function uploadArtifacts(
  ctx: AppContext,
  run: RunRow,
  result: ExecutionResult,
  secrets: Record<string, string>,
): Promise<void> {
  const redactor = createRedactor(Object.values(secrets));
  const put = async (name: string, file: string) => {
    if (fs.existsSync(file) && fs.statSync(file).isFile())
      await ctx.blobs.put(artifactKey(run.id, name), fs.createReadStream(file));
  };
  // Independent uploads, done side by side.
  const uploads: Array<Promise<void>> = [
    ctx.blobs.put(artifactKey(run.id, 'test-run.log'), Buffer.from(redactor.text(result.log ?? ''))),
  ];
  const jsonReportPath = result.jsonReportPath;
  if (jsonReportPath && fs.existsSync(jsonReportPath)) {
    uploads.push(
      (async () => {
        const json = await fsp.readFile(jsonReportPath, 'utf8');
        await ctx.blobs.put(artifactKey(run.id, 'test-results.json'), Buffer.from(redactor.text(json)));
      })(),
    );
  }
  const htmlReportDir = result.htmlReportDir;
  if (htmlReportDir && fs.existsSync(htmlReportDir)) {
    uploads.push(
      (async () => {
        const archive = path.join(path.dirname(htmlReportDir), 'playwright-report.tar.gz');
        await tar.c({ gzip: true, cwd: htmlReportDir, file: archive, portable: true }, ['.']);
        await put('playwright-report.tar.gz', archive);
      })(),
    );
  }
  for (const test of result.tests) {
    for (const artifact of test.artifacts) {
      const file = path.basename(artifact.file || artifact.path);
      uploads.push(put(`tests/${testFolder(test.name)}/${file}`, artifact.path));
    }
  }
  await Promise.all(uploads);
}

function buildReport(
  run: RunRow,
  status: 'completed' | 'failed',
  result: ExecutionResult,
  completedAt: string,
) {
  return {
    status,
    testName: run.testName,
    runName: run.name,
    runId: run.id,
    duration: Math.round(result.durationMs),
    completedAt,
    branchId: run.branchId,
    branchName: run.branchName,
    scheduleName: run.scheduleName,
    runTypeInfo: {
      type: run.targetType,
      name: run.targetName,
      testResults: result.tests.map((test) => ({
        testId: test.testId,
        name: test.name,
        status: test.status,
        duration: Math.round(test.durationMs),
        errorMessage: test.errorMessage,
        errorLocation: test.errorLocation,
        attempts: test.attempts,
      })),
      stats: result.stats,
      runnerError: result.runnerError ?? null,
    },
  };
}

async function finishRun(ctx: AppContext, run: RunRow, result: ExecutionResult): Promise<void> {
  const status = result.status === 'passed' ? 'completed' : 'failed';
  const completedAt = ctx.clock.now().toISOString();
  const report = buildReport(run, status, result, completedAt);
  const finished = await ctx.db.transaction().execute(async (tx) => {
    const updated = await tx
      .updateTable('runs')
      .set({
        status,
        stats: toJson(result.stats),
        report: toJson(report),
        runnerError: result.runnerError ?? null,
        duration: Math.round(result.durationMs),
        completedAt,
      })
      .where('id', '=', run.id)
      .where('status', '=', 'running')
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) !== 1) return false;
    for (const test of result.tests) {
      await tx
        .updateTable('runTests')
        .set({
          status: test.status,
          duration: Math.round(test.durationMs),
          errorMessage: test.errorMessage,
          errorLocation: test.errorLocation,
        })
        .where('runId', '=', run.id)
        .where('testId', '=', test.testId)
        .execute();
    }
    return true;
  });
  if (finished) await emitFinished(ctx, run.id);
}

/** Marks a run failed by its runner (crash, restart, missing browser); emits the event once. */
export async function failRun(
  ctx: AppContext,
  runId: string,
  message: string,
  from: string[],
): Promise<boolean> {
  const run = await findRun(ctx.db, runId);
  if (!run) return false;
  const completedAt = ctx.clock.now().toISOString();
  const members = await runTests(ctx.db, runId);
  const stats = { passed: 0, failed: 0, skipped: members.length, total: members.length };
  const duration = run.startedAt ? Math.max(0, Date.parse(completedAt) - Date.parse(run.startedAt)) : 0;
  const result: ExecutionResult = {
    status: 'runnerError',
    runnerError: message,
    durationMs: duration,
    stats,
    tests: members.map((member) => ({
      testId: member.testId,
      name: member.testName,
      status: 'skipped',
      durationMs: 0,
      errorMessage: null,
      errorLocation: null,
      attempts: 0,
      project: '',
      artifacts: [],
    })),
    jsonReportPath: '',
    htmlReportDir: '',
    log: '',
  };
  const updated = await ctx.db
    .updateTable('runs')
    .set({
      status: 'failed',
      stats: toJson(stats),
      report: toJson(buildReport(run, 'failed', result, completedAt)),
      runnerError: message,
      duration,
      completedAt,
    })
    .where('id', '=', runId)
    .where('status', 'in', from)
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) !== 1) return false;
  await emitFinished(ctx, runId);
  return true;
}

async function emitFinished(ctx: AppContext, runId: string): Promise<void> {
  try {
    const run = await findRun(ctx.db, runId);
    if (!run || (run.status !== 'completed' && run.status !== 'failed')) return;
    const project = await ctx.db
      .selectFrom('projects')
      .select(['id', 'name'])
      .where('id', '=', run.projectId)
      .executeTakeFirst();
    const report = fromJson<ReturnType<typeof buildReport> | null>(run.report, null);
    const event: RunFinished = {
      organizationId: run.organizationId,
      runId: run.id,
      name: run.name,
      status: run.status,
      startedAt: run.startedAt,
      finishedAt: run.completedAt ?? ctx.clock.now().toISOString(),
      durationMs: run.duration ?? 0,
      trigger:
        run.triggerType === 'schedule'
          ? { type: 'schedule', schedule: run.triggerName }
          : run.triggerType === 'manual'
            ? { type: 'manual', email: run.triggerName }
            : { type: 'apiKey', name: run.triggerName },
      project: { id: run.projectId, name: project?.name ?? '' },
      branch: { id: run.branchId, name: run.branchName },
      target: {
        type: run.targetType as RunFinished['target']['type'],
        id: run.targetId,
        name: run.targetName,
      },
      stats: fromJson(run.stats, { passed: 0, failed: 0, skipped: 0, total: 0 }),
      tests: (report?.runTypeInfo.testResults ?? []).map((test) => ({
        name: test.name,
        status: test.status,
        durationMs: test.duration,
        errorMessage: test.status === 'passed' ? null : test.errorMessage,
        errorLocation: test.status === 'passed' ? null : test.errorLocation,
      })),
    };
    ctx.events.emit('run.finished', event);
  } catch (error) {
    ctx.log.error({ err: error, runId }, 'could not emit run.finished');
  }
}
