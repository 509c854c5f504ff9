import { type RunConfig, resolveRunConfig } from '@stepdeck/contract';
import type { AppContext } from '../../context.ts';
import { deviceViewport } from '../../runner/devices.ts';
import { type ExecutedTest, screenshotSteps, visualBaselineFile } from '../../runner/index.ts';
import { artifactKey, testFolder } from './artifacts.ts';
import type { LoadedProject } from './prepare.ts';
import type { RunRow } from './repository.ts';
import type { VisualCheckKey, VisualCheckResult } from './runtime.ts';

/**
 * The run's side of visual checks: which `assertScreenshot` steps its tests hold (with the
 * browser and viewport each runs in), the baselines written into the project before it starts
 * (the run cannot reach the service), and the screenshots it found that are not their baseline.
 */

type RunRef = Pick<RunRow, 'id' | 'organizationId' | 'projectId' | 'branchId'>;

/**
 * The browser and the viewport the page really has: a device's own unless a layer set one
 * (as the generated config does), so a phone's screenshots never meet a desktop baseline.
 */
function where(config: Record<string, unknown>): { browser: string; viewport: string } {
  const resolved = resolveRunConfig(config as RunConfig);
  const device = resolved.environment.device;
  const viewport = (device && !resolved.viewportSet && deviceViewport(device)) || resolved.viewport;
  return { browser: resolved.use.browserName, viewport: `${viewport.width}x${viewport.height}` };
}

function checksOf(loaded: LoadedProject): Array<VisualCheckKey & { stepName: string; nodeId: string }> {
  return loaded.effective.flatMap((test) => {
    const { browser, viewport } = where(test.config);
    return screenshotSteps(test).map((step) => ({
      testId: test.id,
      // Baselines follow the step across branches; the compiled code names the tree's node.
      stepId: step.stepId ?? step.id,
      nodeId: step.id,
      stepName: step.name?.trim() || step.action.description?.trim() || 'assertScreenshot',
      browser,
      viewport,
    }));
  });
}

/** The project with the branch's baselines of its screenshot steps added as files. */
export async function withBaselines(ctx: AppContext, run: RunRef, loaded: LoadedProject) {
  const visual = ctx.runs.visualChecks;
  const checks = checksOf(loaded);
  if (!visual || checks.length === 0) return loaded.project;
  const baselines = await visual.baselinesFor(run, checks);
  if (baselines.size === 0) return loaded.project;
  const files = new Map(loaded.project.files);
  // Where the compiled step reads it: under the node id (compiler/actions/visual.ts).
  const nodeOf = new Map(checks.map((check) => [check as VisualCheckKey, check.nodeId]));
  for (const [check, content] of baselines)
    files.set(visualBaselineFile(check.testId, nodeOf.get(check) ?? check.stepId), content);
  return { ...loaded.project, files };
}

/** Records the screenshots of these tests that are not their baseline (new or changed). */
export async function recordVisualChecks(
  ctx: AppContext,
  run: RunRef,
  loaded: LoadedProject,
  tests: ExecutedTest[],
): Promise<void> {
  const visual = ctx.runs.visualChecks;
  if (!visual) return;
  const checks = new Map(
    checksOf(loaded).map(({ nodeId, ...check }) => [`${check.testId}\u0000${nodeId}`, check]),
  );
  const results: VisualCheckResult[] = [];
  for (const test of tests) {
    for (const found of test.visual ?? []) {
      const check = checks.get(`${test.testId}\u0000${found.stepId}`);
      if (!check || found.status === 'passed') continue;
      // Where uploadArtifacts stored the pictures (runs/<runId>/tests/<test>/<file>).
      const key = (artifact: { file: string } | null) =>
        artifact ? artifactKey(run.id, `tests/${testFolder(test.name)}/${artifact.file}`) : null;
      results.push({
        ...check,
        testName: test.name,
        status: found.status,
        diffPixels: found.diffPixels,
        ratio: found.ratio,
        width: found.width,
        height: found.height,
        actualKey: key(found.actual),
        diffKey: key(found.diff),
      });
    }
  }
  if (results.length > 0) await visual.record(run, results);
}
