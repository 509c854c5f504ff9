import { randomUUID } from 'node:crypto';
import {
  type CreateTestData,
  createTestData,
  type ListTestsQuery,
  type UpdateTestData,
  updateTestData,
} from '@stepdeck/contract';
import type { BlobStore } from '../../adapters/blobs/index.ts';
import type { Db, Tx } from '../../adapters/db/index.ts';
import { toFlag, toJson } from '../../adapters/db/index.ts';
import { lockTestTree, transaction } from '../../adapters/db/locks.ts';
import { type Clock, isoNow } from '../../clock.ts';
import { badRequest, conflict, notFound } from '../../errors.ts';
import { zodMessage } from '../../plugins/errors.ts';
import { activeSchedulesReferencing } from '../schedules/references.ts';
import {
  branchTree,
  findWorkingMany,
  insertWorkingRevision,
  listWorking,
  type RevisionLock,
  requireTagsInOrganization,
  requireWorking,
  setTags,
  subtreeIds,
  tagsOf,
  type WorkingTest,
} from './repository.ts';
import {
  chunk,
  copyRevisionSteps,
  loadStepTree,
  type NormalizedStep,
  parseSteps,
  type StepView,
  StepWriter,
} from './steps-store.ts';

type Executor = Db | Tx;

export interface Scope {
  organizationId: string;
  projectId: string;
  branchId: string;
}

export interface UploadedFile {
  filename: string;
  content: Buffer;
}

/** Parses a `testData`-like form field (JSON string, or an object from a JSON body). */
export function parseJsonField(value: unknown, field: string): unknown {
  if (value === undefined || value === null || value === '') throw badRequest(`${field} is required`);
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    throw badRequest(`${field} must be a JSON string`);
  }
}

const safeFilename = (filename: string) => {
  const base = filename.split(/[\\/]/).pop() ?? '';
  if (!base || base === '.' || base === '..' || base.length > 255)
    throw badRequest(`files: invalid file name "${filename}"`);
  return base;
};

/** Stores uploads as attachments of a test (same filename replaces the previous one). */
export async function storeAttachments(
  db: Executor,
  blobs: BlobStore,
  owner: { projectId: string; testId?: string | null; stepId?: string | null },
  files: UploadedFile[],
  now: string,
) {
  for (const file of files) {
    const filename = safeFilename(file.filename);
    const id = randomUUID();
    const blobKey = `attachments/${owner.projectId}/${id}`;
    await blobs.put(blobKey, file.content);
    let query = db
      .deleteFrom('attachments')
      .where('projectId', '=', owner.projectId)
      .where('filename', '=', filename);
    query = owner.testId
      ? query.where('testId', '=', owner.testId)
      : query.where('stepId', '=', owner.stepId ?? '');
    await query.execute();
    await db
      .insertInto('attachments')
      .values({
        id,
        projectId: owner.projectId,
        testId: owner.testId ?? null,
        stepId: owner.stepId ?? null,
        filename,
        blobKey,
        size: file.content.length,
        createdAt: now,
      })
      .execute();
  }
}

export const testTypeOf = (metadata: { type?: 'ui' | 'api' } | undefined, fallback: 'ui' | 'api' = 'ui') =>
  metadata?.type ?? fallback;

/** Test records merged with their working revision, as list items and detail. */
export function presentTest(
  test: WorkingTest,
  tags: Array<{ id: string; name: string }>,
  childrenCount: number,
) {
  return {
    id: test.id,
    parentTestId: test.parentTestId,
    projectId: test.projectId,
    organizationId: test.organizationId,
    name: test.name,
    status: test.status,
    directory: test.directory,
    config: test.config as Record<string, unknown>,
    vars: test.vars,
    parameters: test.parameters,
    metadata: { ...test.metadata, type: test.type, tags: tags.map((tag) => tag.name) },
    tags,
    childrenCount,
    stepsCount: test.stepsCount,
    editVersion: test.editVersion,
    createdAt: test.createdAt,
    updatedAt: test.updatedAt,
  };
}

/** Steps as the API shows them: `id` is the revision-step id. */
export const presentSteps = (views: StepView[]): unknown[] =>
  views.map((view) => ({
    id: view.id,
    revisionStepId: view.revisionStepId,
    stepId: view.stepId,
    name: view.name,
    action: view.action,
    condition: view.condition,
    metadata: view.metadata,
    order: view.order,
    group: view.group,
    shared: view.shared,
    children: presentSteps(view.children),
  }));

export class TestsService {
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

  async list(scope: Scope, query: ListTestsQuery) {
    if (query.testId) await requireWorking(this.reads, scope.projectId, scope.branchId, query.testId);
    const { rows, total, paginate } = await listWorking(this.reads, { ...scope, query });
    const tags = await tagsOf(
      this.reads,
      rows.map((row) => row.id),
    );
    const limit = paginate ? query.limit : Math.max(total, 1);
    const page = paginate ? query.page : 0;
    const totalPages = Math.ceil(total / limit);
    return {
      children: rows.map((row) => presentTest(row, tags.get(row.id) ?? [], row.childrenCount)),
      pagination: { page, limit, total, totalPages, hasMore: page + 1 < totalPages },
    };
  }

  async create(scope: Scope, rawTestData: unknown, files: UploadedFile[]) {
    const parsed = createTestData.safeParse(rawTestData);
    if (!parsed.success) throw badRequest(zodMessage(parsed.error, 'testData'));
    const data: CreateTestData = parsed.data;
    if (data.directory && data.steps && data.steps.length > 0)
      throw badRequest('testData.steps: a directory has no steps');
    const now = isoNow(this.clock);
    const id = randomUUID();
    const type = testTypeOf(data.metadata);
    await transaction(this.db, async (trx) => {
      // Tree lock, then shared steps, then the parent's revision: the order of docs/concurrency.md.
      if (data.parentTestId) await lockTestTree(trx, scope.branchId, 'shared');
      const steps = data.steps
        ? await parseSteps(trx, scope.projectId, data.steps, 'testData.steps', 'share')
        : [];
      if (data.parentTestId) await this.requireDirectory(trx, scope, data.parentTestId);
      if (data.tags) await requireTagsInOrganization(trx, scope.organizationId, data.tags);
      await trx
        .insertInto('tests')
        .values({
          id,
          projectId: scope.projectId,
          organizationId: scope.organizationId,
          parentTestId: data.parentTestId ?? null,
          directory: toFlag(data.directory),
          createdAt: now,
          updatedAt: now,
        })
        .execute();
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
      throw notFound('Parent test not found');
    });
    if (!parent.directory) throw badRequest('parentTestId: the parent test is not a directory');
    return parent;
  }

  async detail(scope: Scope, testId: string) {
    const test = await requireWorking(this.reads, scope.projectId, scope.branchId, testId);
    const childrenQuery = await listWorking(this.reads, {
      ...scope,
      query: { testId, limit: 50, page: 0, type: 'all', status: undefined, tagIds: undefined },
    });
    const ids = [test.id, ...childrenQuery.rows.map((row) => row.id)];
    if (test.parentTestId) ids.push(test.parentTestId);
    const tags = await tagsOf(this.reads, ids);
    const childCount = childrenQuery.rows.length;
    const parent = test.parentTestId
      ? await requireWorking(this.reads, scope.projectId, scope.branchId, test.parentTestId).catch(
          () => undefined,
        )
      : undefined;
    const steps = await loadStepTree(this.reads, test.revisionId);
    return {
      test: {
        ...presentTest(test, tags.get(test.id) ?? [], childCount),
        revisionId: test.revisionId,
        branchId: scope.branchId,
      },
      children: childrenQuery.rows.map((row) => presentTest(row, tags.get(row.id) ?? [], row.childrenCount)),
      steps: presentSteps(steps),
      parentDirectory: parent
        ? { id: parent.id, name: parent.name, parentTestId: parent.parentTestId }
        : null,
    };
  }

  async steps(scope: Scope, testId: string, revisionId?: string) {
    const test = await requireWorking(this.reads, scope.projectId, scope.branchId, testId);
    let target = test.revisionId;
    if (revisionId) target = (await this.requireSnapshot(scope, testId, revisionId)).id;
    return presentSteps(await loadStepTree(this.reads, target));
  }

  async step(scope: Scope, testId: string, stepId: string) {
    const test = await requireWorking(this.reads, scope.projectId, scope.branchId, testId);
    const find = (views: StepView[]): StepView | undefined => {
      for (const view of views) {
        if (view.id === stepId) return view;
        const inner = find(view.children);
        if (inner) return inner;
      }
      return undefined;
    };
    const found = find(await loadStepTree(this.reads, test.revisionId));
    if (!found) throw notFound('Step not found');
    const [step] = presentSteps([found]) as Array<Record<string, unknown>>;
    return { step, children: presentSteps(found.children) };
  }

  async files(scope: Scope, testId: string) {
    const test = await requireWorking(this.reads, scope.projectId, scope.branchId, testId);
    const rows = await this.reads
      .selectFrom('attachments')
      .select(['filename', 'blobKey', 'stepId'])
      .where('testId', '=', testId)
      .orderBy('filename')
      .execute();
    const steps = await loadStepTree(this.reads, test.revisionId);
    const owners = new Map<string, string>();
    const walk = (views: StepView[]) => {
      for (const view of views) {
        const files = view.action.files;
        if (view.action.name === 'setInputFiles' && Array.isArray(files))
          for (const file of files)
            if (typeof file === 'string' && !owners.has(file)) owners.set(file, view.id);
        walk(view.children);
      }
    };
    walk(steps);
    const out = [];
    for (const row of rows) {
      const content = await this.blobs.get(row.blobKey);
      out.push({
        filename: row.filename,
        content: (content ?? Buffer.alloc(0)).toString('base64'),
        stepId: owners.get(row.filename) ?? row.stepId ?? '',
      });
    }
    return out;
  }

  private async requireSnapshot(scope: Scope, testId: string, revisionId: string) {
    const row = await this.reads
      .selectFrom('testRevisions')
      .select(['id', 'message', 'createdAt', 'name', 'kind'])
      .where('id', '=', revisionId)
      .where('testId', '=', testId)
      .where('branchId', '=', scope.branchId)
      .where('projectId', '=', scope.projectId)
      .executeTakeFirst();
    if (!row) throw notFound('Revision not found');
    return row;
  }

  async revisions(scope: Scope, testId: string) {
    await requireWorking(this.reads, scope.projectId, scope.branchId, testId);
    const rows = await this.reads
      .selectFrom('testRevisions')
      .select(['id', 'message', 'createdAt'])
      .where('testId', '=', testId)
      .where('branchId', '=', scope.branchId)
      .where('kind', '=', 'manual')
      .orderBy('createdAt', 'desc')
      .orderBy('editVersion', 'desc')
      .execute();
    return rows.map((row) => ({
      id: row.id,
      message: row.message ?? '',
      revisionType: 'manual',
      createdAt: row.createdAt,
    }));
  }

  async revision(scope: Scope, testId: string, revisionId: string) {
    const test = await requireWorking(this.reads, scope.projectId, scope.branchId, testId);
    const snapshot = await this.requireSnapshot(scope, testId, revisionId);
    if (snapshot.kind !== 'manual') throw notFound('Revision not found');
    return {
      revision: { id: snapshot.id, message: snapshot.message ?? '', createdAt: snapshot.createdAt },
      test: { id: test.id, name: snapshot.name },
      steps: presentSteps(await loadStepTree(this.reads, snapshot.id)),
    };
  }

  async saveRevision(scope: Scope, testId: string, message: string) {
    const now = isoNow(this.clock);
    return transaction(this.db, async (trx) => {
      // Locked: concurrent saves of one unsaved state queue here; the second sees it clean.
      const test = await requireWorking(trx, scope.projectId, scope.branchId, testId, 'update');
      if (!test.dirty) throw badRequest('No unsaved changes to save as a revision');
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
        stepsCount: test.stepsCount,
        editVersion: test.editVersion,
        dirty: false,
        testCreatedAt: test.createdAt,
        now,
      });
      await copyRevisionSteps(trx, [{ from: test.revisionId, to: id }]);
      await trx.updateTable('testRevisions').set({ dirty: 0 }).where('id', '=', test.revisionId).execute();
      return { id, message, revisionType: 'manual', createdAt: now };
    });
  }

  async update(scope: Scope, testId: string, rawTestData: unknown, files: UploadedFile[]) {
    const parsed = updateTestData.safeParse(rawTestData);
    if (!parsed.success) throw badRequest(zodMessage(parsed.error, 'testData'));
    const data: UpdateTestData = parsed.data;
    const now = isoNow(this.clock);
    await transaction(this.db, async (trx) => {
      // Shared steps first, then the working revision (docs/concurrency.md): the revision is
      // read under its row lock, so the edit check below compares against the committed state.
      const steps: NormalizedStep[] | undefined = data.steps
        ? await parseSteps(trx, scope.projectId, data.steps, 'testData.steps', 'share')
        : undefined;
      const current = await requireWorking(trx, scope.projectId, scope.branchId, testId, 'update');
      if (data.editVersion !== undefined && String(data.editVersion) !== String(current.editVersion))
        throw conflict(
          `Edit conflict: the test changed since editVersion ${data.editVersion} (current editVersion ${current.editVersion})`,
        );
      if (data.tags) await requireTagsInOrganization(trx, scope.organizationId, data.tags);
      const directory = data.directory ?? current.directory;
      if (directory && steps && steps.length > 0)
        throw badRequest('testData.steps: a directory has no steps');
      const type = testTypeOf(data.metadata, current.type);
      let stepsCount = current.stepsCount;
      if (steps) {
        await trx.deleteFrom('revisionSteps').where('revisionId', '=', current.revisionId).execute();
        const writer = new StepWriter(scope.projectId, type, now);
        stepsCount = writer.tree(current.revisionId, steps);
        await writer.flush(trx);
      }
      const result = await trx
        .updateTable('testRevisions')
        .set({
          ...(data.name !== undefined ? { name: data.name, nameLower: data.name.toLowerCase() } : {}),
          ...(data.status !== undefined ? { status: data.status } : {}),
          ...(data.config !== undefined ? { config: toJson(data.config) } : {}),
          ...(data.vars !== undefined ? { vars: data.vars === null ? null : toJson(data.vars) } : {}),
          ...(data.parameters !== undefined
            ? { parameters: data.parameters === null ? null : toJson(data.parameters) }
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
        })
        .where('id', '=', current.revisionId)
        .where('editVersion', '=', current.editVersion)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0)
        throw conflict('Edit conflict: the test changed during the update');
      if (data.directory !== undefined)
        await trx
          .updateTable('tests')
          .set({ directory: toFlag(data.directory), updatedAt: now })
          .where('id', '=', testId)
          .execute();
      else await trx.updateTable('tests').set({ updatedAt: now }).where('id', '=', testId).execute();
      if (data.tags) await setTags(trx, [testId], data.tags);
      await storeAttachments(trx, this.blobs, { projectId: scope.projectId, testId }, files, now);
    });
  }

  private async requireAll(scope: Scope, testIds: string[], db: Executor, lock?: RevisionLock) {
    const found = await findWorkingMany(db, scope.projectId, scope.branchId, testIds, lock);
    const ids = new Set(found.map((test) => test.id));
    const missing = [...new Set(testIds)].filter((id) => !ids.has(id));
    if (missing.length > 0) throw notFound(`Test not found: ${missing.join(', ')}`);
    return found;
  }

  async bulkUpdateStatus(scope: Scope, testIds: string[], status: 'draft' | 'active' | 'archived') {
    const now = isoNow(this.clock);
    await transaction(this.db, async (trx) => {
      const found = await this.requireAll(scope, testIds, trx, 'update');
      for (const part of chunk(
        found.map((test) => test.revisionId),
        500,
      ))
        await trx
          .updateTable('testRevisions')
          .set((eb) => ({ status, dirty: 1, updatedAt: now, editVersion: eb('editVersion', '+', 1) }))
          .where('id', 'in', part)
          .execute();
    });
  }

  async bulkUpdateTags(scope: Scope, testIds: string[], tagIds: string[]) {
    const now = isoNow(this.clock);
    await transaction(this.db, async (trx) => {
      const found = await this.requireAll(scope, testIds, trx, 'update');
      await requireTagsInOrganization(trx, scope.organizationId, tagIds);
      await setTags(trx, [...new Set(testIds)], tagIds);
      for (const part of chunk(
        found.map((test) => test.revisionId),
        500,
      ))
        await trx.updateTable('testRevisions').set({ updatedAt: now }).where('id', 'in', part).execute();
    });
  }

  /** Deletes tests (with their descendants) from the active branch; the row goes once no branch has it. */
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
      const schedules = await activeSchedulesReferencing(trx, scope.projectId, ids);
      if (schedules.length > 0)
        throw badRequest(
          `Test is referenced by active schedules: ${schedules.map((schedule) => schedule.name).join(', ')}`,
          { schedules },
        );
      // Waits for updates in flight on these tests (their row locks), in id order.
      await findWorkingMany(trx, scope.projectId, scope.branchId, ids, 'update');
      for (const part of chunk(ids, 500)) {
        await trx
          .deleteFrom('testRevisions')
          .where('testId', 'in', part)
          .where('branchId', '=', scope.branchId)
          .execute();
        const remaining = await trx
          .selectFrom('testRevisions')
          .select('testId')
          .distinct()
          .where('testId', 'in', part)
          .execute();
        const keep = new Set(remaining.map((row) => row.testId));
        const gone = part.filter((id) => !keep.has(id));
        if (gone.length > 0) {
          const files = await trx
            .selectFrom('attachments')
            .select('blobKey')
            .where('testId', 'in', gone)
            .execute();
          removedBlobs.push(...files.map((file) => file.blobKey));
          await trx.deleteFrom('tests').where('id', 'in', gone).execute();
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
      if (name.length > 128) throw badRequest('name: must be at most 128 characters');
      const tree = await branchTree(trx, scope.projectId, scope.branchId);
      const ids = subtreeIds(tree, [testId]);
      const tests = await findWorkingMany(trx, scope.projectId, scope.branchId, ids, 'share');
      const byId = new Map(tests.map((test) => [test.id, test]));
      const tags = await tagsOf(trx, ids);
      const newIds = new Map(ids.map((id) => [id, randomUUID()]));
      const copies = await this.loadAttachmentsFor(ids, trx);
      const rootCopyId = newIds.get(testId) as string;
      for (const id of ids) {
        const test = byId.get(id);
        if (!test) continue;
        const copyId = newIds.get(id) as string;
        await trx
          .insertInto('tests')
          .values({
            id: copyId,
            projectId: scope.projectId,
            organizationId: scope.organizationId,
            parentTestId: id === testId ? test.parentTestId : (newIds.get(test.parentTestId ?? '') ?? null),
            directory: toFlag(test.directory),
            createdAt: now,
            updatedAt: now,
          })
          .execute();
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

  async loadAttachmentsFor(testIds: string[], db: Executor = this.db): Promise<Map<string, UploadedFile[]>> {
    const out = new Map<string, UploadedFile[]>();
    for (const part of chunk(testIds, 500)) {
      const rows = await db
        .selectFrom('attachments')
        .select(['testId', 'filename', 'blobKey'])
        .where('testId', 'in', part)
        .execute();
      for (const row of rows) {
        const content = await this.blobs.get(row.blobKey);
        if (!content || !row.testId) continue;
        const list = out.get(row.testId) ?? [];
        list.push({ filename: row.filename, content });
        out.set(row.testId, list);
      }
    }
    return out;
  }
}

/** A stored tree as writer input: own steps copied, shared steps kept by reference. */
export function viewsToNormalized(views: StepView[]): NormalizedStep[] {
  return views.map((view) =>
    view.shared
      ? {
          sharedRef: view.stepId,
          name: view.name,
          action: view.action as NormalizedStep['action'],
          condition: null,
          metadata: null,
          shared: true,
          group: view.group,
          children: [],
        }
      : {
          name: view.name,
          action: view.action as NormalizedStep['action'],
          condition: view.condition,
          metadata: view.metadata,
          shared: false,
          group: view.group,
          children: viewsToNormalized(view.children),
        },
  );
}
