import { randomUUID } from 'node:crypto';
import {
  describeActionError,
  jsonObject,
  stepAction,
  stepCondition,
  updateStepData,
} from '@stepdeck/contract';
import type { BlobStore } from '../../adapters/blobs/index.ts';
import type { Db } from '../../adapters/db/index.ts';
import { fromFlag, readJson, toJson } from '../../adapters/db/index.ts';
import { transaction } from '../../adapters/db/locks.ts';
import { type Clock, isoNow } from '../../clock.ts';
import { appError } from '../../errors.ts';
import { zodMessage } from '../../plugins/errors.ts';
import {
  defaultStepLimits,
  deleteStep,
  findVisibleStep,
  groupChildren,
  insertLinks,
  insertStepCopy,
  linksOf,
  parentsOf,
  repointNodes,
  requireStep,
  type StepLimits,
  type StepRow,
  sharedStepsPage,
  stripScreenshotData,
  updateStep,
} from '../step-trees/public.ts';
import {
  deleteStepAttachments,
  isWorkingRevision,
  lockRevisions,
  markEdited,
  type Scope,
  storeAttachments,
  type UploadedFile,
} from '../tests/public.ts';
import { replaceChildren } from './children.ts';
import { guardTestsShowing, usages } from './step-usage.ts';

const present = (row: StepRow) => ({
  id: row.id,
  name: row.name,
  action: stripScreenshotData(readJson(jsonObject, row.action, {}, `steps ${row.id}/action`)),
  shared: fromFlag(row.shared),
  group: fromFlag(row.isGroup),
});

export class StepsService {
  private readonly db: Db;
  private readonly blobs: BlobStore;
  private readonly clock: Clock;
  /** Reads that need no transaction go here, never queued behind writes (DatabaseHandle.reads). */
  private readonly reads: Db;
  /** `MAX_STEPS_PER_TEST` and `MAX_STEP_TREE_BYTES`, checked on every test an edit changes. */
  private readonly limits: StepLimits;

  constructor(options: { db: Db; blobs: BlobStore; clock: Clock; reads?: Db; limits?: StepLimits }) {
    this.db = options.db;
    this.blobs = options.blobs;
    this.clock = options.clock;
    this.reads = options.reads ?? options.db;
    this.limits = options.limits ?? defaultStepLimits;
  }

  private async requireVisible(scope: Scope, stepId: string) {
    const row = await findVisibleStep(this.reads, scope, isWorkingRevision, stepId);
    if (!row) throw appError('STEP_NOT_FOUND');
    return row;
  }

  async listShared(
    scope: Scope,
    query: { limit: number; page: number; search?: string | undefined; type: 'all' | 'ui' | 'api' },
  ) {
    const { rows, total } = await sharedStepsPage(this.reads, scope, isWorkingRevision, query);
    const totalPages = Math.ceil(total / query.limit);
    return {
      data: rows.map(present),
      pagination: {
        page: query.page,
        limit: query.limit,
        total,
        totalPages,
        hasMore: query.page + 1 < totalPages,
      },
    };
  }

  async get(scope: Scope, stepId: string) {
    return present(await this.requireVisible(scope, stepId));
  }

  async children(scope: Scope, stepId: string) {
    const row = await this.requireVisible(scope, stepId);
    const links = await groupChildren(this.reads, row.id);
    return {
      step: present(row),
      // `id` is the link id, the same the group's tree shows (and PUT .../children matches
      // as `revisionStepId`); `stepId` is the child's canonical step.
      children: links.map((link) => ({
        id: link.linkId,
        stepId: link.id,
        name: link.name,
        action: stripScreenshotData(readJson(jsonObject, link.action, {}, `steps ${link.id}/action`)),
        order: link.position,
      })),
    };
  }

  async usage(scope: Scope, stepId: string) {
    await this.requireVisible(scope, stepId);
    const direct = await usages(this.reads, scope.projectId, stepId);
    const seen = new Map<string, string>();
    for (const use of direct) if (use.branchId === scope.branchId) seen.set(use.testId, use.name);
    return [...seen].map(([id, name]) => ({ id, name }));
  }

  /** Updates a canonical step; copy-on-write when the action changes and other branches use it. */
  async update(scope: Scope, stepId: string, raw: unknown, files: UploadedFile[]) {
    const parsed = updateStepData.safeParse(raw);
    if (!parsed.success) throw appError('STEP_DATA_INVALID', zodMessage(parsed.error, 'stepData'));
    const data = parsed.data;
    const visible = await this.requireVisible(scope, stepId);
    const label = `step "${visible.name}"`;
    let action: Record<string, unknown> | undefined;
    if (data.action !== undefined) {
      const result = stepAction.safeParse(data.action);
      if (!result.success) throw appError('STEP_ACTION_INVALID', describeActionError(label, result.error));
      action = result.data;
    }
    let condition: unknown;
    if (data.condition !== undefined && data.condition !== null) {
      const result = stepCondition.safeParse(data.condition);
      if (!result.success) throw appError('STEP_CONDITION_INVALID', label, zodMessage(result.error));
      condition = result.data;
    }
    const now = isoNow(this.clock);
    return transaction(this.db, async (trx) => {
      // The step, then the revisions using it (docs/concurrency.md); a test write that would
      // add a use of the step holds it for share, so `uses` is complete while this runs.
      const row = await requireStep(trx, scope.projectId, stepId, 'update');
      const actionChanged = action !== undefined && toJson(action) !== row.action;
      const uses = await usages(trx, scope.projectId, stepId);
      await lockRevisions(
        trx,
        uses.map((use) => use.revisionId),
      );
      const otherBranches = uses.some((use) => use.branchId !== scope.branchId);
      // Every test showing the step (directly or in shared groups) grows by what it grows.
      const checkLimits = await guardTestsShowing(trx, this.limits, scope.projectId, [stepId]);
      const fields = {
        ...(data.name !== undefined ? { name: data.name, nameLower: data.name.toLowerCase() } : {}),
        ...(action !== undefined ? { action: toJson(action) } : {}),
        ...(data.metadata !== undefined
          ? { metadata: data.metadata === null ? null : toJson(data.metadata) }
          : {}),
        ...(data.condition !== undefined
          ? { condition: data.condition === null ? null : toJson(condition) }
          : {}),
        updatedAt: now,
      };
      const here = uses.filter((use) => use.branchId === scope.branchId).map((use) => use.revisionId);
      let id = stepId;
      if (actionChanged && otherBranches) {
        id = randomUUID();
        await insertStepCopy(trx, row, id, now, fields);
        const links = await linksOf(trx, stepId);
        await insertLinks(
          trx,
          links.map((link) => ({ ...link, id: randomUUID(), parentStepId: id })),
        );
        await repointNodes(trx, stepId, id, here);
      } else {
        await updateStep(trx, stepId, fields);
      }
      await checkLimits();
      await markEdited(trx, here, now);
      if (files.length > 0)
        await storeAttachments(trx, this.blobs, { projectId: scope.projectId, stepId: id }, files, now);
      const updated = await requireStep(trx, scope.projectId, id);
      const shown = present(updated);
      return { id: shown.id, name: shown.name, action: shown.action };
    });
  }

  /** Replaces the children of a group in a working revision (`:stepId` is the revision-step id). */
  async replaceChildren(scope: Scope, revisionStepId: string, raw: unknown, files: UploadedFile[] = []) {
    return replaceChildren(
      { db: this.db, blobs: this.blobs, clock: this.clock, limits: this.limits },
      scope,
      revisionStepId,
      raw,
      files,
    );
  }

  /** Deletes a canonical step unless a test on any branch still uses it (body lists them). */
  async delete(scope: Scope, stepId: string) {
    return transaction(this.db, async (trx) => {
      // Locked first: a test write referencing the step holds it for share, so it either
      // committed (and shows in `uses`) or waits and then no longer finds the step.
      const row = await requireStep(trx, scope.projectId, stepId, 'update');
      const uses = await usages(trx, scope.projectId, stepId);
      const parents = await parentsOf(trx, stepId);
      if (uses.length > 0 || parents.length > 0) {
        const tests = [...new Map(uses.map((use) => [`${use.testId}:${use.branchId}`, use])).values()].map(
          (use) => ({
            id: use.testId,
            name: use.name,
            branchId: use.branchId,
            branchName: use.branchName,
          }),
        );
        const branches = [
          ...new Map(uses.map((use) => [use.branchId, { id: use.branchId, name: use.branchName }])).values(),
        ];
        throw appError('STEP_IN_USE').with({
          body: { tests, branches, sharedGroups: parents.map((parent) => parent.parentStepId) },
        });
      }
      await deleteStepAttachments(trx, stepId);
      await deleteStep(trx, stepId);
      return { id: row.id, shared: fromFlag(row.shared), group: fromFlag(row.isGroup) };
    });
  }
}
