import { randomUUID } from 'node:crypto';
import { type CreateTestData, createTestData, type UpdateTestData, updateTestData } from '@stepdeck/contract';
import type { BlobStore } from '../../adapters/blobs/index.ts';
import type { Db, Tx } from '../../adapters/db/index.ts';
import { chunk, toFlag, toJson } from '../../adapters/db/index.ts';
import { lockTestTree, transaction } from '../../adapters/db/locks.ts';
import { type Clock, isoNow } from '../../clock.ts';
import { appError } from '../../errors.ts';
import { zodMessage } from '../../plugins/errors.ts';
import { deviceProblem } from '../../runner/devices.ts';
import {
  copyRevisionSteps,
  defaultStepLimits,
  deleteRevisionTree,
  loadStepTree,
  type NormalizedStep,
  parseSteps,
  refuseOverLimits,
  requireStepsWithinLimits,
  revisionSizes,
  type StepLimits,
  StepWriter,
} from '../step-trees/public.ts';
import { loadAttachmentsFor, storeAttachments, type UploadedFile } from './attachments.ts';
import { attachmentBlobKeysOfTests } from './attachments-repository.ts';
import { requireDataColumns } from './data-references.ts';
import { type Scope, testTypeOf, viewsToNormalized } from './present.ts';
import {
  branchTree,
  findWorkingMany,
  insertWorkingRevision,
  type RevisionLock,
  requireTagsInOrganization,
  requireWorking,
  setTags,
  subtreeIds,
  tagsOf,
} from './repository.ts';
import {
  deleteRevisionsOnBranch,
  deleteTestRows,
  insertTest,
  markRevisionSaved,
  setStatusOfRevisions,
  testIdsWithRevisions,
  touchRevisions,
  updateRevisionAtVersion,
  updateTestRow,
} from './writes-repository.ts';

type Executor = Db | Tx;

/**
 * A refusal another module adds to deleting tests (schedules refuse to lose a test they target),
 * run inside the delete's transaction with the tests and every descendant; it throws to refuse.
 */
export type TestDeleteGuard = (trx: Tx, projectId: string, testIds: readonly string[]) => Promise<void>;

export interface TestsServiceOptions {
  db: Db;
  blobs: BlobStore;
  clock: Clock;
  /** Reads that need no transaction go here, never queued behind writes (DatabaseHandle.reads). */
  reads?: Db;
  /** `MAX_STEPS_PER_TEST` and `MAX_STEP_TREE_BYTES`: every write that adds steps checks them. */
  limits?: StepLimits;
  /** Refusals of other modules, registered when they start (`AppContext.deleteGuards`). */
  deleteGuards?: readonly TestDeleteGuard[];
}

/**
 * The changing operations on tests, directories and revisions. Each reads what it depends on
 * inside its transaction under the locks of docs/concurrency.md.
 */
export class TestWrites {
  private readonly db: Db;
  private readonly blobs: BlobStore;
  private readonly clock: Clock;
  /** `MAX_STEPS_PER_TEST` and `MAX_STEP_TREE_BYTES`: every write that adds steps checks them. */
  private readonly limits: StepLimits;
  private readonly deleteGuards: readonly TestDeleteGuard[];

  constructor(options: TestsServiceOptions) {
    this.db = options.db;
    this.blobs = options.blobs;
    this.clock = options.clock;
    this.limits = options.limits ?? defaultStepLimits;
    this.deleteGuards = options.deleteGuards ?? [];
  }

  async create(scope: Scope, rawTestData: unknown, files: UploadedFile[]) {
    const parsed = createTestData.safeParse(rawTestData);
    if (!parsed.success) throw appError('TEST_DATA_INVALID', zodMessage(parsed.error, 'testData'));
    const data: CreateTestData = parsed.data;
    refuseUnavailableDevice(data.config);
    if (data.directory && data.steps && data.steps.length > 0) throw appError('DIRECTORY_HAS_NO_STEPS');
    const now = isoNow(this.clock);
    const id = randomUUID();
    const type = testTypeOf(data.metadata);
    await transaction(this.db, async (trx) => {
      // Tree lock, then shared steps, then the parent's revision: the order of docs/concurrency.md.
      if (data.parentTestId) await lockTestTree(trx, scope.branchId, 'shared');
      const steps = data.steps
        ? await parseSteps(trx, scope.projectId, data.steps, 'testData.steps', 'share')
        : [];
      await requireStepsWithinLimits(trx, this.limits, steps);
      requireDataColumns(steps, data.dataSet ?? null);
      if (data.parentTestId) await this.requireDirectory(trx, scope, data.parentTestId);
      if (data.tags) await requireTagsInOrganization(trx, scope.organizationId, data.tags);
      await insertTest(trx, {
        id,
        projectId: scope.projectId,
        organizationId: scope.organizationId,
        parentTestId: data.parentTestId ?? null,
        directory: toFlag(data.directory),
        createdAt: now,
        updatedAt: now,
      });
      const revisionId = randomUUID();
      const writer = new StepWriter(scope.projectId, type, now);
      const stepsCount = writer.tree(revisionId, steps);
      await insertWorkingRevision(trx, {
        id: revisionId,
        testId: id,
        projectId: scope.projectId,
        branchId: scope.branchId,
        name: data.name,
        status: data.status,
        type,
        config: data.config ?? {},
        vars: data.vars ?? null,
        parameters: data.parameters ?? null,
        metadata: { description: data.metadata?.description ?? '' },
        dataSet: data.dataSet ?? null,
        stepsCount,
        now,
      });
      await writer.flush(trx);
      if (data.tags) await setTags(trx, [id], data.tags);
      await storeAttachments(trx, this.blobs, { projectId: scope.projectId, testId: id }, files, now);
    });
    return {
      id,
      parentTestId: data.parentTestId ?? null,
      projectId: scope.projectId,
      organizationId: scope.organizationId,
      createdAt: now,
      updatedAt: now,
    };
  }

  private async requireDirectory(trx: Tx, scope: Scope, testId: string) {
    const parent = await requireWorking(trx, scope.projectId, scope.branchId, testId, 'share').catch(() => {
      throw appError('PARENT_TEST_NOT_FOUND');
    });
    if (!parent.directory) throw appError('PARENT_NOT_DIRECTORY');
    return parent;
  }

  /**
   * The directory a test moves into: on this branch, a directory, and neither the test itself
   * nor one of its descendants. Read without a row lock: the caller's exclusive tree lock keeps
   * the tree still, and a second revision lock here would break the one-statement order.
   */
  private async requireMoveTarget(trx: Tx, scope: Scope, testId: string, targetId: string) {
    if (targetId === testId) throw appError('MOVE_INTO_SELF');
    const [target] = await findWorkingMany(trx, scope.projectId, scope.branchId, [targetId]);
    if (!target) throw appError('PARENT_TEST_NOT_FOUND');
    if (!target.directory) throw appError('PARENT_NOT_DIRECTORY');
    const tree = await branchTree(trx, scope.projectId, scope.branchId);
    if (subtreeIds(tree, [testId]).includes(targetId)) throw appError('MOVE_INTO_DESCENDANT');
  }

  async saveRevision(scope: Scope, testId: string, message: string) {
    const now = isoNow(this.clock);
    return transaction(this.db, async (trx) => {
      // Locked: concurrent saves of one unsaved state queue here; the second sees it clean.
      const test = await requireWorking(trx, scope.projectId, scope.branchId, testId, 'update');
      if (!test.dirty) throw appError('NO_UNSAVED_CHANGES');
      const id = await insertWorkingRevision(trx, {
        kind: 'manual',
        message,
        testId,
        projectId: scope.projectId,
        branchId: scope.branchId,
        name: test.name,
        status: test.status,
        type: test.type,
        config: test.config,
        vars: test.vars,
        parameters: test.parameters,
        metadata: test.metadata,
        dataSet: test.dataSet,
        stepsCount: test.stepsCount,
        editVersion: test.editVersion,
        dirty: false,
        testCreatedAt: test.createdAt,
        now,
      });
      await copyRevisionSteps(trx, [{ from: test.revisionId, to: id }]);
      await markRevisionSaved(trx, test.revisionId);
      return { id, message, revisionType: 'manual', createdAt: now };
    });
  }

  async update(scope: Scope, testId: string, rawTestData: unknown, files: UploadedFile[]) {
    const parsed = updateTestData.safeParse(rawTestData);
    if (!parsed.success) throw appError('TEST_DATA_INVALID', zodMessage(parsed.error, 'testData'));
    const data: UpdateTestData = parsed.data;
    refuseUnavailableDevice(data.config);
    const now = isoNow(this.clock);
    await transaction(this.db, async (trx) => {
      // A move holds the tree lock exclusively (level 1, first): no concurrent move can build a
      // cycle with it and no delete can remove the target directory before it commits.
      if (data.parentTestId !== undefined) await lockTestTree(trx, scope.branchId, 'exclusive');
      // Shared steps first, then the working revision (docs/concurrency.md): the revision is
      // read under its row lock, so the edit check below compares against the committed state.
      const steps: NormalizedStep[] | undefined = data.steps
        ? await parseSteps(trx, scope.projectId, data.steps, 'testData.steps', 'share')
        : undefined;
      const current = await requireWorking(trx, scope.projectId, scope.branchId, testId, 'update');
      if (data.editVersion !== undefined && String(data.editVersion) !== String(current.editVersion))
        throw appError('EDIT_VERSION_CONFLICT', String(data.editVersion), String(current.editVersion));
      if (data.parentTestId) await this.requireMoveTarget(trx, scope, testId, data.parentTestId);
      if (data.tags) await requireTagsInOrganization(trx, scope.organizationId, data.tags);
      const directory = data.directory ?? current.directory;
      if (directory && steps && steps.length > 0) throw appError('DIRECTORY_HAS_NO_STEPS');
      if (steps) await requireStepsWithinLimits(trx, this.limits, steps, current.revisionId);
      if (steps || data.dataSet !== undefined)
        requireDataColumns(
          steps ?? (await loadStepTree(trx, current.revisionId)),
          data.dataSet !== undefined ? data.dataSet : current.dataSet,
        );
      const type = testTypeOf(data.metadata, current.type);
      let stepsCount = current.stepsCount;
      if (steps) {
        await deleteRevisionTree(trx, current.revisionId);
        const writer = new StepWriter(scope.projectId, type, now);
        stepsCount = writer.tree(current.revisionId, steps);
        await writer.flush(trx);
      }
      const updated = await updateRevisionAtVersion(trx, current.revisionId, current.editVersion, {
        ...(data.name !== undefined ? { name: data.name, nameLower: data.name.toLowerCase() } : {}),
        ...(data.status !== undefined ? { status: data.status } : {}),
        ...(data.config !== undefined ? { config: toJson(data.config) } : {}),
        ...(data.vars !== undefined ? { vars: data.vars === null ? null : toJson(data.vars) } : {}),
        ...(data.parameters !== undefined
          ? { parameters: data.parameters === null ? null : toJson(data.parameters) }
          : {}),
        ...(data.dataSet !== undefined
          ? { dataSet: data.dataSet === null ? null : toJson(data.dataSet) }
          : {}),
        ...(data.metadata !== undefined
          ? {
              metadata: toJson({
                ...current.metadata,
                description: data.metadata.description ?? current.metadata.description ?? '',
              }),
              type,
            }
          : {}),
        stepsCount,
        editVersion: current.editVersion + 1,
        dirty: 1,
        updatedAt: now,
      });
      if (!updated) throw appError('EDIT_CONFLICT');
      await updateTestRow(trx, testId, {
        ...(data.directory !== undefined ? { directory: toFlag(data.directory) } : {}),
        ...(data.parentTestId !== undefined ? { parentTestId: data.parentTestId } : {}),
        updatedAt: now,
      });
      if (data.tags) await setTags(trx, [testId], data.tags);
      await storeAttachments(trx, this.blobs, { projectId: scope.projectId, testId }, files, now);
    });
  }

  private async requireAll(scope: Scope, testIds: string[], db: Executor, lock?: RevisionLock) {
    const found = await findWorkingMany(db, scope.projectId, scope.branchId, testIds, lock);
    const ids = new Set(found.map((test) => test.id));
    const missing = [...new Set(testIds)].filter((id) => !ids.has(id));
    if (missing.length > 0) throw appError('TEST_NOT_FOUND', missing.join(', '));
    return found;
  }

  async bulkUpdateStatus(scope: Scope, testIds: string[], status: 'draft' | 'active' | 'archived') {
    const now = isoNow(this.clock);
    await transaction(this.db, async (trx) => {
      const found = await this.requireAll(scope, testIds, trx, 'update');
      await setStatusOfRevisions(
        trx,
        found.map((test) => test.revisionId),
        status,
        now,
      );
    });
  }

  async bulkUpdateTags(scope: Scope, testIds: string[], tagIds: string[]) {
    const now = isoNow(this.clock);
    await transaction(this.db, async (trx) => {
      const found = await this.requireAll(scope, testIds, trx, 'update');
      await requireTagsInOrganization(trx, scope.organizationId, tagIds);
      await setTags(trx, [...new Set(testIds)], tagIds);
      await touchRevisions(
        trx,
        found.map((test) => test.revisionId),
        now,
      );
    });
  }

  /**
   * Deletes tests (with their descendants) from the active branch; the row goes once no branch
   * has it. Refused when another module's guard objects (an active schedule targets one).
   */
  async delete(scope: Scope, testIds: string[]) {
    const removedBlobs: string[] = [];
    await transaction(this.db, async (trx) => {
      removedBlobs.length = 0;
      // Exclusive tree lock: every create under a directory of this branch either committed
      // before (and is in the subtree read below) or waits and then finds its parent gone.
      await lockTestTree(trx, scope.branchId, 'exclusive');
      await this.requireAll(scope, testIds, trx);
      const tree = await branchTree(trx, scope.projectId, scope.branchId);
      const ids = subtreeIds(tree, testIds);
      for (const guard of this.deleteGuards) await guard(trx, scope.projectId, ids);
      // Waits for updates in flight on these tests (their row locks), in id order.
      await findWorkingMany(trx, scope.projectId, scope.branchId, ids, 'update');
      for (const part of chunk(ids, 500)) {
        await deleteRevisionsOnBranch(trx, part, scope.branchId);
        const keep = await testIdsWithRevisions(trx, part);
        const gone = part.filter((id) => !keep.has(id));
        if (gone.length > 0) {
          removedBlobs.push(...(await attachmentBlobKeysOfTests(trx, gone)));
          await deleteTestRows(trx, gone);
        }
      }
    });
    for (const key of removedBlobs) await this.blobs.delete(key);
  }

  /** Copies a test, or a directory with its whole subtree, on the active branch. */
  async duplicate(
    scope: Scope,
    testId: string,
    body: { name?: string | undefined; status?: 'draft' | 'active' | 'archived' | undefined } = {},
  ) {
    const now = isoNow(this.clock);
    return transaction(this.db, async (trx) => {
      // Shared tree lock (no delete meanwhile), then the subtree's revisions locked for share:
      // updates in flight finish first and later ones wait, so the copy is of one moment.
      await lockTestTree(trx, scope.branchId, 'shared');
      const root = await requireWorking(trx, scope.projectId, scope.branchId, testId);
      const name = body.name ?? `${root.name} (Copy)`;
      if (name.length > 128) throw appError('NAME_TOO_LONG');
      const tree = await branchTree(trx, scope.projectId, scope.branchId);
      const ids = subtreeIds(tree, [testId]);
      const tests = await findWorkingMany(trx, scope.projectId, scope.branchId, ids, 'share');
      const byId = new Map(tests.map((test) => [test.id, test]));
      // A copy is a new test: over a limit (a test stored before the limits), it is refused.
      const sizes = await revisionSizes(
        trx,
        tests.map((test) => test.revisionId),
      );
      for (const test of tests)
        refuseOverLimits(this.limits, sizes.get(test.revisionId) ?? { steps: 0, bytes: 0 }, {
          who: `the copy of "${test.name}"`,
        });
      const tags = await tagsOf(trx, ids);
      const newIds = new Map(ids.map((id) => [id, randomUUID()]));
      const copies = await loadAttachmentsFor(trx, this.blobs, ids);
      const rootCopyId = newIds.get(testId) as string;
      for (const id of ids) {
        const test = byId.get(id);
        if (!test) continue;
        const copyId = newIds.get(id) as string;
        await insertTest(trx, {
          id: copyId,
          projectId: scope.projectId,
          organizationId: scope.organizationId,
          parentTestId: id === testId ? test.parentTestId : (newIds.get(test.parentTestId ?? '') ?? null),
          directory: toFlag(test.directory),
          createdAt: now,
          updatedAt: now,
        });
        const views = await loadStepTree(trx, test.revisionId);
        const writer = new StepWriter(scope.projectId, test.type, now);
        const revisionId = randomUUID();
        const stepsCount = writer.tree(revisionId, viewsToNormalized(views));
        await insertWorkingRevision(trx, {
          id: revisionId,
          testId: copyId,
          projectId: scope.projectId,
          branchId: scope.branchId,
          name: id === testId ? name : test.name,
          status: body.status ?? test.status,
          type: test.type,
          config: test.config,
          vars: test.vars,
          parameters: test.parameters,
          metadata: test.metadata,
          dataSet: test.dataSet,
          stepsCount,
          now,
        });
        await writer.flush(trx);
        const testTags = (tags.get(id) ?? []).map((tag) => tag.id);
        if (testTags.length > 0) await setTags(trx, [copyId], testTags);
        await storeAttachments(
          trx,
          this.blobs,
          { projectId: scope.projectId, testId: copyId },
          copies.get(id) ?? [],
          now,
        );
      }
      return { id: rootCopyId, name };
    });
  }
}

/** A config naming a device this service cannot emulate is refused when saved, naming it. */
function refuseUnavailableDevice(config: { device?: string } | null | undefined): void {
  const problem = config?.device === undefined ? null : deviceProblem(config.device);
  if (problem) throw appError('DEVICE_NOT_AVAILABLE', problem);
}
