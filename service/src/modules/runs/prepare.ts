import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { type RunConfig, resolveRunConfig, runConfig } from '@stepdeck/contract';
import * as tar from 'tar';
import { readJson } from '../../adapters/db/index.ts';
import type { AppContext } from '../../context.ts';
import { compileProject, environmentEnvVar, secretEnvVar } from '../../runner/compiler/index.ts';
import { executeProject } from '../../runner/executor.ts';
import { concurrencyCapOf } from '../accounts/public.ts';
import { environmentForExecution } from '../environments/public.ts';
import { issueRunInboxAccess } from '../inboxes/public.ts';
import { loadCompilableTests, loadProjectSecrets } from '../tests/public.ts';
import { artifactKey, artifactLimitsOf } from './artifacts.ts';
import { addArtifactBytes } from './artifacts-repository.ts';
import { startupCost, storeStartupCost } from './planner.ts';
import { recordProcessGroup } from './processes-repository.ts';
import { type RunRow, runTests } from './repository.ts';
import { withBaselines } from './visual-checks.ts';

/**
 * From a claimed run to Playwright's result: the tests compiled with the run's overrides, the
 * bundle stored while the browser runs, secrets and a per-run inbox key in the environment.
 */

export type LoadedProject = Awaited<ReturnType<typeof loadRunProject>>;

/** The run's tests (or one batch's: `testIds`) compiled with the run's overrides, and its secrets. */
export async function loadRunProject(ctx: AppContext, run: RunRow, testIds?: string[]) {
  const ids = testIds ?? (await runTests(ctx.db, run.id)).map((member) => member.testId);
  const compilable = await loadCompilableTests(ctx.db, ctx.blobs, {
    projectId: run.projectId,
    branchId: run.branchId,
    testIds: ids,
  });
  // The run's environment, read as it executes: its secrets over the project's of the same
  // name (and redacted like them), its variables for `{{env.NAME}}`.
  const environment = run.environmentId
    ? await environmentForExecution(ctx.db, run.environmentId)
    : { variables: {}, secrets: {} };
  const secrets = { ...(await loadProjectSecrets(ctx.db, run.projectId)), ...environment.secrets };
  const overrides = readJson(runConfig, run.config, {}, `runs ${run.id}/config`);
  const cap = await concurrencyCapOf(ctx.db, run.organizationId);
  // Overrides layer over each test's own config; the compiler groups tests by the result.
  const merged = compilable.map((test) => ({
    ...test,
    config: effectiveConfig(test.config as RunConfig, overrides, cap) as Record<string, unknown>,
  }));
  const resolvedAll = merged.map((test) => resolveRunConfig(test.config as RunConfig));
  const project = await compileProject({
    tests: merged,
    config: null,
    secretNames: Object.keys(secrets),
  });
  // Each row of a test's data set is one more Playwright test, like a repeat.
  const copiesOf = (index: number) =>
    (resolvedAll[index]?.repeatEach ?? 1) * Math.max(1, compilable[index]?.dataSet?.rows.length ?? 1);
  const perTest = resolvedAll.reduce(
    (sum, config, index) => sum + Math.max(config.timeout, 30_000) * (config.retries + 1) * copiesOf(index),
    0,
  );
  const timeoutMs = Math.min(perTest + 120_000, 6 * 3600_000);
  const repeatEach = new Map(compilable.map((test, index) => [test.id, copiesOf(index)]));
  // The compiled config runs the most workers any test asks for.
  const workers = Math.max(1, ...resolvedAll.map((config) => config.workers));
  // `effective`: each test with the config it runs with (the browser and viewport of its screenshots).
  return {
    compilable,
    project,
    secrets,
    variables: environment.variables,
    timeoutMs,
    repeatEach,
    workers,
    effective: merged,
  };
}

/** The compiled project as a bundle (generated code only, secrets stay in the environment). */
export async function storeBundle(
  ctx: AppContext,
  run: Pick<RunRow, 'id' | 'organizationId'>,
  loaded: LoadedProject,
  workDir: string,
) {
  const bundleDir = path.join(workDir, 'bundle');
  for (const [relative, content] of loaded.project.files) {
    const target = path.join(bundleDir, relative);
    await fsp.mkdir(path.dirname(target), { recursive: true });
    await fsp.writeFile(target, content);
  }
  const bundleFile = path.join(workDir, 'bundle.tgz');
  await tar.c({ gzip: true, cwd: bundleDir, file: bundleFile, portable: true }, await fsp.readdir(bundleDir));
  await ctx.blobs.put(artifactKey(run.id, 'bundle.tgz'), fs.createReadStream(bundleFile), 'application/gzip');
  // Counted, not capped: generated code only, and the run cannot start without it.
  await addArtifactBytes(ctx.db, run, (await fsp.stat(bundleFile)).size);
}

/** Runs a loaded project (a whole run, or one batch writing a blob report into `blobDir`). */
export async function executeLoaded(
  ctx: AppContext,
  run: RunRow,
  loaded: LoadedProject,
  workDir: string,
  signal: AbortSignal,
  options: { blobDir?: string; processKey?: string } = {},
) {
  const { compilable, secrets, timeoutMs } = loaded;
  // The service URL reaches email steps through the environment, like the secrets, so the
  // bundle is byte for byte the project `POST /v1/tests/export` (format pw) produces.
  const env: Record<string, string> = { STEPDECK_API_URL: ctx.config.publicUrl };
  for (const [name, value] of Object.entries(secrets)) env[secretEnvVar(name)] = value;
  for (const [name, value] of Object.entries(loaded.variables)) env[environmentEnvVar(name)] = value;
  // Email steps poll the inbox API with a per-run emailInbox:read key, deleted when the run ends.
  const inbox = await issueRunInboxAccess(ctx.db, ctx.clock, {
    organizationId: run.organizationId,
    runId: run.id,
    apiUrl: ctx.config.publicUrl,
    tests: compilable,
  });
  const processKey = options.processKey ?? run.id;
  // What the run (its earlier batches, its bundle) and its organization stored bound its outputs.
  const artifactLimits = await artifactLimitsOf(ctx, run);
  const result = await executeProject({
    dir: path.join(workDir, 'project'),
    // The branch's baselines go with the run, not into its stored bundle.
    project: await withBaselines(ctx, run, loaded),
    env: { ...env, ...inbox.env },
    signal,
    timeoutMs,
    blobDir: options.blobDir,
    artifactLimits,
    onSpawn: (pid) => {
      // The supervisor leads the run's process group (its pid is the group id).
      recordProcessGroup(ctx.db, processKey, pid).catch((error: unknown) =>
        ctx.log.warn({ err: error, runId: run.id }, 'could not record the run process group'),
      );
    },
  }).finally(() => inbox.release());
  if (result.status !== 'runnerError') {
    startupCost.record({
      durationMs: result.durationMs,
      testDurationsMs: result.tests.map((test) => test.durationMs),
      workers: loaded.workers,
    });
    await storeStartupCost(ctx.db).catch((error: unknown) =>
      ctx.log.warn({ err: error }, 'could not store the measured start-up cost'),
    );
  }
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
