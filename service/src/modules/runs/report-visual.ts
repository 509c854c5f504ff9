import type { RunReport, VisualChangeSummary } from '@stepdeck/contract';
import type { AppContext } from '../../context.ts';
import { visualPictureName } from '../../runner/index.ts';
import { artifactKey, testFolder } from './artifacts.ts';
import type { RunRow } from './repository.ts';
import type { VisualChangePictures } from './runtime.ts';

/**
 * How long a visual change's `imageUrl` works: 7 days, the longest an S3 presigned URL may
 * live. The URL ends up in PR comments and job summaries, which GitHub's image proxy fetches
 * without an API key; it should show the screenshot for as long as the PR is usually reviewed.
 */
export const visualImageUrlSeconds = 604_800;

/**
 * Whether the change's pictures are those of this report entry. The report names a step by
 * its node in the run's tree, a change row by the step's identity across branches; what both
 * share is the file the run stored: `runs/<run>/tests/<test>/[prefix-]visual-<node>-<kind>.png`
 * (visual-checks.ts stores it there, the runtime names it).
 */
function pictureKeyOf(
  runId: string,
  entry: VisualChangeSummary,
  change: VisualChangePictures,
): string | undefined {
  if (change.testId !== entry.testId) return undefined;
  const folder = artifactKey(runId, `tests/${testFolder(entry.testName)}/`);
  const name = new RegExp(`(^|-)${visualPictureName(entry.stepId)}-(actual|diff)\\.png$`);
  const shown = [change.diffKey, change.actualKey].some(
    (key) => key?.startsWith(folder) && name.test(key.slice(folder.length)),
  );
  // The diff shows what changed at a glance; a new screenshot has only itself.
  return shown ? (change.diffKey ?? change.actualKey ?? undefined) : undefined;
}

/**
 * The report with each visual change's `imageUrl` added when the run is read: a presigned URL
 * of its diff, else of its screenshot, so a PR comment can show it as a thumbnail (an image
 * proxy sends no API key). Presigned at each read, since URLs expire; the stored report has
 * none. Without the visual module, or when its changes cannot be read, the report goes out as
 * stored: reading a run never fails on it.
 */
export async function withVisualImageUrls(
  ctx: AppContext,
  run: Pick<RunRow, 'id' | 'organizationId'>,
  report: RunReport | null,
): Promise<RunReport | null> {
  const visual = ctx.runs.visualChecks;
  const entries = report?.visualChanges ?? [];
  if (!report || !visual || entries.length === 0) return report;
  try {
    const unused = await visual.changePictures({ id: run.id, organizationId: run.organizationId });
    const keys = entries.map((entry) => {
      // A repeated test lists the same step once per repeat: each takes a change of its own.
      for (const [index, change] of unused.entries()) {
        const key = pictureKeyOf(run.id, entry, change);
        if (!key) continue;
        unused.splice(index, 1);
        return key;
      }
      return undefined;
    });
    const visualChanges = await Promise.all(
      entries.map(async (entry, index) => {
        const key = keys[index];
        // No file name: the picture opens in the browser instead of downloading.
        return key ? { ...entry, imageUrl: await ctx.blobs.presign(key, visualImageUrlSeconds) } : entry;
      }),
    );
    return { ...report, visualChanges };
  } catch (error) {
    ctx.log.warn({ err: error, runId: run.id }, 'run report goes without visual image URLs');
    return report;
  }
}
