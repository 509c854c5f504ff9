import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { VisualBaseline, VisualChange } from '@stepdeck/contract';
import type { AppContext } from '../../context.ts';
import { appError } from '../../errors.ts';
import { findProject } from '../accounts/public.ts';
import {
  findRunOwner,
  organizationQuotaRefusal,
  type VisualChangePictures,
  type VisualCheckKey,
  type VisualCheckResult,
} from '../runs/public.ts';
import {
  type BaselineRow,
  baselinesOfBranches,
  type ChangeRow,
  changesOfRun,
  decideChanges,
  findBaseline,
  findChange,
  insertChanges,
  replaceBaseline,
  storedBaselineBytes,
} from './repository.ts';

type RunRef = { organizationId: string; projectId: string; branchId: string };

/** Superseded baselines kept per key (with their blobs), beside the one in use. */
export const supersededBaselinesKept = 3;
export type ImageKind = 'baseline' | 'actual' | 'diff';

const checkKey = (check: { testId: string; stepId: string; browser: string; viewport: string }) =>
  `${check.testId}\u0000${check.stepId}\u0000${check.browser}\u0000${check.viewport}`;

/**
 * Baselines per branch and the review of visual changes. A branch without a baseline of its
 * own for a step uses its project's default branch's; approving a change writes the branch's
 * own (a copy of the screenshot under `visual/`), so the branch diverges from then on.
 */
export class VisualService {
  private readonly ctx: AppContext;

  constructor(options: { ctx: AppContext }) {
    this.ctx = options.ctx;
  }

  /** The baseline each key uses on this branch: its own, else the default branch's. */
  private async effectiveBaselines(run: RunRef, testIds: string[]): Promise<Map<string, BaselineRow>> {
    const project = await findProject(this.ctx.db, run.organizationId, run.projectId);
    const parent = project && project.defaultBranchId !== run.branchId ? project.defaultBranchId : null;
    const rows = await baselinesOfBranches(this.ctx.db, parent ? [run.branchId, parent] : [run.branchId], [
      ...new Set(testIds),
    ]);
    const chosen = new Map<string, BaselineRow>();
    // The parent's first, so the branch's own replaces it.
    for (const row of rows.filter((candidate) => candidate.branchId !== run.branchId))
      chosen.set(checkKey(row), row);
    for (const row of rows.filter((candidate) => candidate.branchId === run.branchId))
      chosen.set(checkKey(row), row);
    return chosen;
  }

  async baselinesFor(run: RunRef, checks: VisualCheckKey[]): Promise<Map<VisualCheckKey, Buffer>> {
    const chosen = await this.effectiveBaselines(
      run,
      checks.map((check) => check.testId),
    );
    const files = new Map<VisualCheckKey, Buffer>();
    for (const check of checks) {
      const row = chosen.get(checkKey(check));
      const content = row ? await this.ctx.blobs.get(row.blobKey) : undefined;
      if (content) files.set(check, content);
    }
    return files;
  }

  async record(run: RunRef & { id: string }, results: VisualCheckResult[]): Promise<void> {
    const chosen = await this.effectiveBaselines(
      run,
      results.map((result) => result.testId),
    );
    const createdAt = this.ctx.clock.now().toISOString();
    await insertChanges(
      this.ctx.db,
      results.map((result) => ({
        id: randomUUID(),
        organizationId: run.organizationId,
        projectId: run.projectId,
        branchId: run.branchId,
        runId: run.id,
        testId: result.testId,
        testName: result.testName,
        stepId: result.stepId,
        stepName: result.stepName,
        browser: result.browser,
        viewport: result.viewport,
        status: result.status,
        diffPixels: result.diffPixels,
        ratio: result.ratio,
        width: result.width,
        height: result.height,
        actualKey: result.actualKey,
        diffKey: result.diffKey,
        baselineId: chosen.get(checkKey(result))?.id ?? null,
        decision: 'pending',
        decidedBy: null,
        decidedAt: null,
        createdAt,
      })),
    );
  }

  private async runOf(organizationId: string, runId: string) {
    const run = await findRunOwner(this.ctx.db, runId);
    if (!run || run.organizationId !== organizationId) throw appError('RUN_NOT_FOUND');
    return run;
  }

  async listForRun(organizationId: string, runId: string): Promise<VisualChange[]> {
    await this.runOf(organizationId, runId);
    return (await changesOfRun(this.ctx.db, organizationId, runId)).map(toChange);
  }

  /**
   * Approves or rejects the run's pending changes (`changeIds`, else all). Approving makes each
   * screenshot its branch's baseline; rejecting keeps the baseline, so the step keeps failing.
   */
  async decide(
    organizationId: string,
    runId: string,
    changeIds: string[] | undefined,
    decision: 'approved' | 'rejected',
    decidedBy: string,
  ): Promise<VisualChange[]> {
    await this.runOf(organizationId, runId);
    const all = await changesOfRun(this.ctx.db, organizationId, runId);
    let chosen: ChangeRow[];
    if (changeIds) {
      const byId = new Map(all.map((change) => [change.id, change]));
      chosen = [];
      for (const id of new Set(changeIds.map((value) => value.toLowerCase()))) {
        const change = byId.get(id);
        if (!change) throw appError('VISUAL_CHANGE_NOT_FOUND');
        if (change.decision !== 'pending') throw appError('VISUAL_CHANGE_DECIDED');
        chosen.push(change);
      }
    } else chosen = all.filter((change) => change.decision === 'pending');
    const decidedAt = this.ctx.clock.now().toISOString();
    if (decision === 'approved') {
      const sizes = await this.pictureSizesOf(chosen);
      const bytes = [...sizes.values()].reduce((sum, size) => sum + size, 0);
      const refusal = await organizationQuotaRefusal(this.ctx, organizationId, bytes);
      if (refusal) throw appError('VISUAL_QUOTA_EXCEEDED', refusal);
      for (const change of chosen)
        await this.promote(change, sizes.get(change.id) as number, decidedBy, decidedAt);
    }
    await decideChanges(
      this.ctx.db,
      chosen.map((change) => change.id),
      { decision, decidedBy, decidedAt },
    );
    const decided = new Set(chosen.map((change) => change.id));
    return (await changesOfRun(this.ctx.db, organizationId, runId))
      .filter((change) => decided.has(change.id))
      .map(toChange);
  }

  /**
   * The sizes of the screenshots the changes would make baselines, by change id (all stored, or
   * a 404), read without their content: approving a whole run holds no picture in memory.
   */
  private async pictureSizesOf(changes: ChangeRow[]): Promise<Map<string, number>> {
    const sizes = new Map<string, number>();
    for (const change of changes) {
      const size = change.actualKey ? await this.ctx.blobs.size(change.actualKey) : undefined;
      if (size === undefined) throw appError('VISUAL_IMAGE_NOT_FOUND');
      sizes.set(change.id, size);
    }
    return sizes;
  }

  /**
   * The change's screenshot as its branch's baseline. The baseline it replaces is kept as
   * superseded (its changes still show it), {@link supersededBaselinesKept} per key; older
   * ones are deleted with their blobs, so the quota counts only what is kept.
   */
  private async promote(
    change: ChangeRow,
    bytes: number,
    approvedBy: string,
    approvedAt: string,
  ): Promise<void> {
    const blobKey = `visual/${change.projectId}/${change.branchId}/${change.testId}/${change.stepId.replace(/[^A-Za-z0-9_-]/g, '_')}/${change.browser}-${change.viewport}-${change.id}.png`;
    // Copied as a stream: one screenshot at a time passes through, never held whole.
    const content = change.actualKey ? await this.ctx.blobs.stream(change.actualKey) : undefined;
    if (!content) throw appError('VISUAL_IMAGE_NOT_FOUND');
    await this.ctx.blobs.put(blobKey, content, 'image/png');
    const dropped = await this.ctx.db.transaction().execute((tx) =>
      replaceBaseline(
        tx,
        {
          id: randomUUID(),
          organizationId: change.organizationId,
          projectId: change.projectId,
          branchId: change.branchId,
          testId: change.testId,
          stepId: change.stepId,
          browser: change.browser,
          viewport: change.viewport,
          blobKey,
          bytes,
          width: change.width,
          height: change.height,
          sourceRunId: change.runId,
          approvedBy,
          approvedAt,
        },
        approvedAt,
        supersededBaselinesKept,
      ),
    );
    for (const key of dropped)
      await this.ctx.blobs
        .delete(key)
        .catch((error: unknown) =>
          this.ctx.log.warn({ err: error, key }, 'could not delete a superseded baseline'),
        );
  }

  /** Bytes of the organization's baselines (in use and kept superseded), for its quota. */
  async storedBytes(organizationId: string): Promise<number> {
    return storedBaselineBytes(this.ctx.db, organizationId);
  }

  /** The blob keys of the run's changes' screenshots and diffs, for its report's thumbnails. */
  async changePictures(run: { id: string; organizationId: string }): Promise<VisualChangePictures[]> {
    return (await changesOfRun(this.ctx.db, run.organizationId, run.id)).map((change) => ({
      testId: change.testId,
      actualKey: change.actualKey,
      diffKey: change.diffKey,
    }));
  }

  async image(organizationId: string, changeId: string, kind: ImageKind): Promise<Readable> {
    const change = await findChange(this.ctx.db, organizationId, changeId);
    if (!change) throw appError('VISUAL_CHANGE_NOT_FOUND');
    let key: string | null = kind === 'actual' ? change.actualKey : kind === 'diff' ? change.diffKey : null;
    if (kind === 'baseline' && change.baselineId) {
      key = (await findBaseline(this.ctx.db, organizationId, change.baselineId))?.blobKey ?? null;
    }
    const stream = key ? await this.ctx.blobs.stream(key) : undefined;
    if (!stream) throw appError('VISUAL_IMAGE_NOT_FOUND');
    return stream;
  }

  async baselineImage(organizationId: string, baselineId: string): Promise<Readable> {
    const row = await findBaseline(this.ctx.db, organizationId, baselineId);
    const stream = row ? await this.ctx.blobs.stream(row.blobKey) : undefined;
    if (!stream) throw appError('VISUAL_BASELINE_NOT_FOUND');
    return stream;
  }

  /** The baselines a branch runs against: its own, and its default branch's where it has none. */
  async baselinesOf(run: RunRef, testId?: string): Promise<VisualBaseline[]> {
    const project = await findProject(this.ctx.db, run.organizationId, run.projectId);
    const parent = project && project.defaultBranchId !== run.branchId ? project.defaultBranchId : null;
    const rows = await baselinesOfBranches(
      this.ctx.db,
      parent ? [run.branchId, parent] : [run.branchId],
      testId ? [testId] : undefined,
    );
    const own = new Set(rows.filter((row) => row.branchId === run.branchId).map(checkKey));
    return rows
      .filter((row) => row.branchId === run.branchId || !own.has(checkKey(row)))
      .map((row) => ({
        id: row.id,
        branchId: row.branchId,
        inherited: row.branchId !== run.branchId,
        testId: row.testId,
        stepId: row.stepId,
        browser: row.browser,
        viewport: row.viewport,
        width: row.width,
        height: row.height,
        bytes: Number(row.bytes),
        sourceRunId: row.sourceRunId,
        approvedBy: row.approvedBy,
        approvedAt: row.approvedAt,
        image: `/v1/visual-baselines/${row.id}/image`,
      }));
  }
}

function toChange(row: ChangeRow): VisualChange {
  const image = (kind: ImageKind) => `/v1/visual-changes/${row.id}/images/${kind}`;
  return {
    id: row.id,
    runId: row.runId,
    branchId: row.branchId,
    testId: row.testId,
    testName: row.testName,
    stepId: row.stepId,
    stepName: row.stepName,
    browser: row.browser,
    viewport: row.viewport,
    status: row.status,
    diffPixels: row.diffPixels,
    ratio: Number(row.ratio),
    width: row.width,
    height: row.height,
    decision: row.decision,
    decidedBy: row.decidedBy,
    decidedAt: row.decidedAt,
    createdAt: row.createdAt,
    images: {
      baseline: row.baselineId ? image('baseline') : null,
      actual: row.actualKey ? image('actual') : null,
      diff: row.diffKey ? image('diff') : null,
    },
  };
}
