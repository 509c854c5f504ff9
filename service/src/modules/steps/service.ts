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
import { fromFlag, readJson, toFlag, toJson } from '../../adapters/db/index.ts';
import { transaction } from '../../adapters/db/locks.ts';
import { type Clock, isoNow } from '../../clock.ts';
import { badRequest, notFound } from '../../errors.ts';
import { zodMessage } from '../../plugins/errors.ts';
import {
  deleteStepAttachments,
  lockRevisions,
  markEdited,
  requireWorking,
  type Scope,
  storeAttachments,
  type UploadedFile,
} from '../tests/public.ts';
import {
  childActions,
  deleteIfOrphan,
  deleteLinks,
  deleteStep,
  findVisibleStep,
  groupChildren,
  insertLinks,
  insertStepCopy,
  isShared,
  linksOf,
  parentsOf,
  setLink,
  sharedStepsPage,
  updateOwnStep,
  updateStep,
} from './repository.ts';
import {
  childNodes,
  deleteNodes,
  findWorkingNode,
  markEditedAndRecount,
  nodeExists,
  repointNodes,
  setNodePosition,
  usages,
} from './revision-nodes.ts';
import {
  existingSharedIds,
  type NormalizedStep,
  normalizeSteps,
  parseSteps,
  referencedIds,
  requireStep,
  type StepRow,
  StepWriter,
  stripScreenshotData,
} from './steps-store.ts';

/** The stored columns of an edited (non-shared) step. */
const stepFields = (step: NormalizedStep, now: string) => ({
  name: step.name,
  nameLower: step.name.toLowerCase(),
  action: toJson(step.action),
  condition: step.condition ? toJson(step.condition) : null,
  metadata: step.metadata ? toJson(step.metadata) : null,
  isGroup: toFlag(step.group),
  updatedAt: now,
});

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

  constructor(db: Db, blobs: BlobStore, clock: Clock, reads: Db = db) {
    this.db = db;
    this.blobs = blobs;
    this.clock = clock;
    this.reads = reads;
  }

  private async requireVisible(scope: Scope, stepId: string) {
    const row = await findVisibleStep(this.reads, scope, stepId);
    if (!row) throw notFound('Step not found');
    return row;
  }

  async listShared(
    scope: Scope,
    query: { limit: number; page: number; search?: string | undefined; type: 'all' | 'ui' | 'api' },
  ) {
    const { rows, total } = await sharedStepsPage(this.reads, scope, query);
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
    if (!parsed.success) throw badRequest(zodMessage(parsed.error, 'stepData'));
    const data = parsed.data;
    const visible = await this.requireVisible(scope, stepId);
    const label = `step "${visible.name}"`;
    let action: Record<string, unknown> | undefined;
    if (data.action !== undefined) {
      const result = stepAction.safeParse(data.action);
      if (!result.success) throw badRequest(describeActionError(label, result.error));
      action = result.data;
    }
    let condition: unknown;
    if (data.condition !== undefined && data.condition !== null) {
      const result = stepCondition.safeParse(data.condition);
      if (!result.success) throw badRequest(`${label}: condition: ${zodMessage(result.error)}`);
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
    if (!Array.isArray(raw)) throw badRequest('children must be a JSON array');
    const node = await findWorkingNode(this.db, scope, revisionStepId);
    if (!node) throw notFound('Step not found');
    if (!node.isGroup) throw badRequest('Step is not a group');
    await requireWorking(this.db, scope.projectId, scope.branchId, node.testId);
    if (node.shared)
      return this.replaceSharedChildren(scope, node, raw as Array<Record<string, unknown>>, files);
    const items = raw as Array<Record<string, unknown>>;
    const now = isoNow(this.clock);
    return transaction(this.db, async (trx) => {
      // Shared steps referenced, then the test's working revision (docs/concurrency.md).
      const normalized = await parseSteps(trx, scope.projectId, items, 'children', 'share');
      await requireWorking(trx, scope.projectId, scope.branchId, node.testId, 'update');
      if (!(await nodeExists(trx, node.id))) throw notFound('Step not found');
      const existing = await childNodes(trx, node.revisionId, node.id);
      const existingIds = new Set(existing.map((row) => row.id));
      const order = items.map((item, index) => ({ item, index, step: normalized[index] }));
      order.sort((a, b) => Number(a.item.order ?? a.index) - Number(b.item.order ?? b.index));
      const kept = new Set<string>();
      const writer = new StepWriter(scope.projectId, node.type, now);
      const out: Array<{ id: string; name: string; order: number }> = [];
      for (const [position, entry] of order.entries()) {
        const step = entry.step;
        if (!step) continue;
        const revId = typeof entry.item.revisionStepId === 'string' ? entry.item.revisionStepId : undefined;
        if (revId && existingIds.has(revId)) {
          kept.add(revId);
          const current = existing.find((row) => row.id === revId);
          if (current && !step.sharedRef) await updateOwnStep(trx, current.stepId, stepFields(step, now));
          await setNodePosition(trx, revId, position);
          out.push({ id: revId, name: step.name, order: position });
        } else {
          const before = writer.revisionSteps.length;
          writer.tree(node.revisionId, [step], node.id);
          const created = writer.revisionSteps[before];
          if (created) {
            created.position = position;
            out.push({ id: created.id, name: step.sharedRef ? '' : step.name, order: position });
          }
        }
      }
      const removed = existing.filter((row) => !kept.has(row.id)).map((row) => row.id);
      await deleteNodes(trx, node.revisionId, removed);
      await writer.flush(trx);
      await markEditedAndRecount(trx, node.revisionId, now);
      // Uploads for setInputFiles children belong to the test (as with PUT /v1/tests/:testId).
      if (files.length > 0)
        await storeAttachments(
          trx,
          this.blobs,
          { projectId: scope.projectId, testId: node.testId },
          files,
          now,
        );
      return { step: { id: node.id, name: node.name }, children: out };
    });
  }

  /**
   * A shared group's children are canonical (`stepChildren`), so every test using the group sees
   * the change. Copy-on-write as in `update`: when another branch uses the group, this branch gets
   * a new group record (with copied links) and changed children become new step records.
   * Items match existing children by `revisionStepId`, which for a shared group is the link id.
   */
  private async replaceSharedChildren(
    scope: Scope,
    node: { id: string; stepId: string; name: string; type: 'ui' | 'api' },
    items: Array<Record<string, unknown>>,
    files: UploadedFile[],
  ) {
    const now = isoNow(this.clock);
    return transaction(this.db, async (trx) => {
      // The group and the shared steps it will reference, in one statement in id order, then
      // the revisions using the group (docs/concurrency.md).
      const locked = await existingSharedIds(
        trx,
        scope.projectId,
        [node.stepId, ...referencedIds(items)],
        'update',
      );
      if (!locked.has(node.stepId)) throw notFound('Step not found');
      const normalized = normalizeSteps(items, 'children', locked);
      const order = items.map((item, index) => ({ item, index, step: normalized[index] }));
      order.sort((a, b) => Number(a.item.order ?? a.index) - Number(b.item.order ?? b.index));
      const uses = await usages(trx, scope.projectId, node.stepId);
      await lockRevisions(
        trx,
        uses.map((use) => use.revisionId),
      );
      const copy = uses.some((use) => use.branchId !== scope.branchId);
      const here = uses.filter((use) => use.branchId === scope.branchId).map((use) => use.revisionId);
      let groupId = node.stepId;
      let links = await linksOf(trx, groupId);
      /** Link ids the client knows → the link rows of the group being edited. */
      const linkOf = new Map(links.map((link) => [link.id, link]));
      if (copy) {
        const row = await requireStep(trx, scope.projectId, node.stepId);
        groupId = randomUUID();
        await insertStepCopy(trx, row, groupId, now);
        const copies = links.map((link) => ({ ...link, id: randomUUID(), parentStepId: groupId }));
        await insertLinks(trx, copies);
        for (const [index, link] of links.entries()) {
          const copied = copies[index];
          if (copied) linkOf.set(link.id, copied);
        }
        links = copies;
        await repointNodes(trx, node.stepId, groupId, here);
      }
      const writer = new StepWriter(scope.projectId, node.type, now);
      const kept = new Set<string>();
      const out: Array<{ id: string; name: string; order: number }> = [];
      for (const [position, entry] of order.entries()) {
        const step = entry.step;
        if (!step) continue;
        const known =
          typeof entry.item.revisionStepId === 'string' ? linkOf.get(entry.item.revisionStepId) : undefined;
        if (known && !kept.has(known.id)) {
          kept.add(known.id);
          let childId = step.sharedRef ?? known.childStepId;
          if (!step.sharedRef && (await isShared(trx, known.childStepId)) === false) {
            if (copy) {
              // The other branch's group still links the old child record.
              childId = writer.canonical(step, false);
              for (const link of await linksOf(trx, known.childStepId))
                writer.stepChildren.push({ ...link, id: randomUUID(), parentStepId: childId });
            } else await updateStep(trx, childId, stepFields(step, now));
          }
          await setLink(trx, known.id, position, childId);
          out.push({ id: known.id, name: step.sharedRef ? '' : step.name, order: position });
        } else {
          const before = writer.stepChildren.length;
          writer.sharedGroupChildren(groupId, [step]);
          const link = writer.stepChildren[before];
          if (link) {
            link.position = position;
            out.push({ id: link.id, name: step.sharedRef ? '' : step.name, order: position });
          }
        }
      }
      const removed = links.filter((link) => !kept.has(link.id));
      await deleteLinks(
        trx,
        removed.map((link) => link.id),
      );
      await writer.flush(trx);
      for (const link of removed) await deleteIfOrphan(trx, link.childStepId);
      await markEdited(trx, here, now);
      // Uploads belong to the canonical child naming them (like a shared step's own files), so
      // every test using the group gets them.
      if (files.length > 0) {
        const children = await childActions(trx, groupId);
        for (const file of files) {
          const owner = children.find((child) => {
            const action = readJson(jsonObject, child.action, {}, `steps ${child.id}/action`);
            return Array.isArray(action.files) && action.files.includes(file.filename);
          });
          if (!owner) throw badRequest(`files: no setInputFiles child of the group names "${file.filename}"`);
          await storeAttachments(
            trx,
            this.blobs,
            { projectId: scope.projectId, stepId: owner.id },
            [file],
            now,
          );
        }
      }
      return { step: { id: node.id, name: node.name }, children: out };
    });
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
        throw badRequest('Step is still used by tests and cannot be deleted', {
          tests,
          branches,
          sharedGroups: parents.map((parent) => parent.parentStepId),
        });
      }
      await deleteStepAttachments(trx, stepId);
      await deleteStep(trx, stepId);
      return { id: row.id, shared: fromFlag(row.shared), group: fromFlag(row.isGroup) };
    });
  }
}
