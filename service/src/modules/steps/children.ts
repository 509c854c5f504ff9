import { randomUUID } from 'node:crypto';
import { jsonObject } from '@stepdeck/contract';
import type { BlobStore } from '../../adapters/blobs/index.ts';
import type { Db } from '../../adapters/db/index.ts';
import { readJson, toFlag, toJson } from '../../adapters/db/index.ts';
import { transaction } from '../../adapters/db/locks.ts';
import { type Clock, isoNow } from '../../clock.ts';
import { appError } from '../../errors.ts';
import {
  childActions,
  childNodes,
  deleteIfOrphan,
  deleteLinks,
  deleteNodes,
  existingSharedIds,
  insertLinks,
  insertStepCopy,
  isShared,
  linksOf,
  type NormalizedStep,
  nodeExists,
  normalizeSteps,
  parseSteps,
  referencedIds,
  refuseOverLimits,
  repointNodes,
  requireStep,
  revisionSizes,
  type StepLimits,
  StepWriter,
  setLink,
  setNodePosition,
  updateOwnStep,
  updateStep,
} from '../step-trees/public.ts';
import {
  lockRevisions,
  markEdited,
  requireWorking,
  type Scope,
  storeAttachments,
  type UploadedFile,
} from '../tests/public.ts';
import { findWorkingNode, guardTestsShowing, markEditedAndRecount, usages } from './step-usage.ts';

/**
 * Replacing the children of a group: inline in one test's working revision, or canonical for a
 * shared group (copy-on-write across branches). `StepsService.replaceChildren` is the entry.
 */

export interface ChildrenDeps {
  db: Db;
  blobs: BlobStore;
  clock: Clock;
  limits: StepLimits;
}

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

/** Replaces the children of a group in a working revision (`:stepId` is the revision-step id). */
export async function replaceChildren(
  deps: ChildrenDeps,
  scope: Scope,
  revisionStepId: string,
  raw: unknown,
  files: UploadedFile[] = [],
) {
  if (!Array.isArray(raw)) throw appError('CHILDREN_NOT_ARRAY');
  const node = await findWorkingNode(deps.db, scope, revisionStepId);
  if (!node) throw appError('STEP_NOT_FOUND');
  if (!node.isGroup) throw appError('STEP_NOT_GROUP');
  await requireWorking(deps.db, scope.projectId, scope.branchId, node.testId);
  if (node.shared)
    return replaceSharedChildren(deps, scope, node, raw as Array<Record<string, unknown>>, files);
  const items = raw as Array<Record<string, unknown>>;
  const now = isoNow(deps.clock);
  return transaction(deps.db, async (trx) => {
    // Shared steps referenced, then the test's working revision (docs/concurrency.md).
    const normalized = await parseSteps(trx, scope.projectId, items, 'children', 'share');
    await requireWorking(trx, scope.projectId, scope.branchId, node.testId, 'update');
    if (!(await nodeExists(trx, node.id))) throw appError('STEP_NOT_FOUND');
    const [before] = (await revisionSizes(trx, [node.revisionId])).values();
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
    // Measured as written (kept children keep their subtrees); refused, the transaction rolls back.
    const [after] = (await revisionSizes(trx, [node.revisionId])).values();
    if (after) refuseOverLimits(deps.limits, after, { before, who: `test "${node.testName}"` });
    await markEditedAndRecount(trx, node.revisionId, now);
    // Uploads for setInputFiles children belong to the test (as with PUT /v1/tests/:testId).
    if (files.length > 0)
      await storeAttachments(
        trx,
        deps.blobs,
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
async function replaceSharedChildren(
  deps: ChildrenDeps,
  scope: Scope,
  node: { id: string; stepId: string; name: string; type: 'ui' | 'api' },
  items: Array<Record<string, unknown>>,
  files: UploadedFile[],
) {
  const now = isoNow(deps.clock);
  return transaction(deps.db, async (trx) => {
    // The group and the shared steps it will reference, in one statement in id order, then
    // the revisions using the group (docs/concurrency.md).
    const locked = await existingSharedIds(
      trx,
      scope.projectId,
      [node.stepId, ...referencedIds(items)],
      'update',
    );
    if (!locked.has(node.stepId)) throw appError('STEP_NOT_FOUND');
    const normalized = normalizeSteps(items, 'children', locked);
    const order = items.map((item, index) => ({ item, index, step: normalized[index] }));
    order.sort((a, b) => Number(a.item.order ?? a.index) - Number(b.item.order ?? b.index));
    const uses = await usages(trx, scope.projectId, node.stepId);
    await lockRevisions(
      trx,
      uses.map((use) => use.revisionId),
    );
    // Every test showing the group (directly or inside other shared groups) changes with it.
    const checkLimits = await guardTestsShowing(trx, deps.limits, scope.projectId, [node.stepId]);
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
    await checkLimits();
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
        if (!owner) throw appError('FILE_WITHOUT_STEP', file.filename);
        await storeAttachments(
          trx,
          deps.blobs,
          { projectId: scope.projectId, stepId: owner.id },
          [file],
          now,
        );
      }
    }
    return { step: { id: node.id, name: node.name }, children: out };
  });
}
