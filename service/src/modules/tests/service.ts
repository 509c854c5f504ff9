import type { ListTestsQuery } from '@stepdeck/contract';
import type { BlobStore } from '../../adapters/blobs/index.ts';
import type { Db } from '../../adapters/db/index.ts';
import { appError } from '../../errors.ts';
import { loadStepTree, type StepView } from '../step-trees/public.ts';
import { loadAttachmentsFor, type UploadedFile } from './attachments.ts';
import { attachmentsOfTest } from './attachments-repository.ts';
import { findRevisionOfTest, manualRevisions } from './history-repository.ts';
import { listWorking } from './list-repository.ts';
import { jsonWith, onlyItem, presentTest, type Scope, stepsJson } from './present.ts';
import { requireWorking, tagsOf } from './repository.ts';
import { type TestsServiceOptions, TestWrites } from './writes.ts';

// Kept importable from here for transfer.ts, which already does.
export { storeAttachments, type UploadedFile } from './attachments.ts';
export {
  parseJsonField,
  presentSteps,
  presentTest,
  type Scope,
  testTypeOf,
  viewsToNormalized,
} from './present.ts';

/**
 * The tests module's service: reads here (on the read connection, DatabaseHandle.reads), the
 * changing operations in `TestWrites` (writes.ts), reached through the same object.
 */
export class TestsService {
  private readonly db: Db;
  private readonly blobs: BlobStore;
  /** Reads that need no transaction go here, never queued behind writes (DatabaseHandle.reads). */
  private readonly reads: Db;
  private readonly writes: TestWrites;

  constructor(options: TestsServiceOptions) {
    this.db = options.db;
    this.blobs = options.blobs;
    this.reads = options.reads ?? options.db;
    this.writes = new TestWrites(options);
  }

  readonly create: TestWrites['create'] = (...args) => this.writes.create(...args);
  readonly update: TestWrites['update'] = (...args) => this.writes.update(...args);
  readonly saveRevision: TestWrites['saveRevision'] = (...args) => this.writes.saveRevision(...args);
  readonly bulkUpdateStatus: TestWrites['bulkUpdateStatus'] = (...args) =>
    this.writes.bulkUpdateStatus(...args);
  readonly bulkUpdateTags: TestWrites['bulkUpdateTags'] = (...args) => this.writes.bulkUpdateTags(...args);
  readonly delete: TestWrites['delete'] = (...args) => this.writes.delete(...args);
  readonly duplicate: TestWrites['duplicate'] = (...args) => this.writes.duplicate(...args);

  /** Every stored file of the given tests (export). */
  loadAttachmentsFor(testIds: string[]): Promise<Map<string, UploadedFile[]>> {
    return loadAttachmentsFor(this.db, this.blobs, testIds);
  }

  async list(scope: Scope, query: ListTestsQuery) {
    if (query.testId && query.topLevel === 'true') throw appError('TEST_LIST_FILTER_CONFLICT');
    if (query.testId) await requireWorking(this.reads, scope.projectId, scope.branchId, query.testId);
    const { rows, tags, total, paginate } = await listWorking(this.reads, { ...scope, query });
    const limit = paginate ? query.limit : Math.max(total, 1);
    const page = paginate ? query.page : 0;
    const totalPages = Math.ceil(total / limit);
    return {
      children: rows.map((row) => presentTest(row, tags.get(row.id) ?? [], row.childrenCount)),
      pagination: { page, limit, total, totalPages, hasMore: page + 1 < totalPages },
    };
  }

  /**
   * The read routes of a step tree answer JSON serialized here (`stepsJson`, a slice at a time):
   * bounded by MAX_STEPS_PER_TEST and MAX_STEP_TREE_BYTES when written, larger when stored before.
   */
  async detail(scope: Scope, testId: string): Promise<string[]> {
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
    return jsonWith(
      {
        test: {
          ...presentTest(test, tags.get(test.id) ?? [], childCount),
          revisionId: test.revisionId,
          branchId: scope.branchId,
          dataSet: test.dataSet,
        },
        children: childrenQuery.rows.map((row) =>
          presentTest(row, tags.get(row.id) ?? [], row.childrenCount),
        ),
        parentDirectory: parent
          ? { id: parent.id, name: parent.name, parentTestId: parent.parentTestId }
          : null,
      },
      { steps: await stepsJson(steps) },
    );
  }

  async steps(scope: Scope, testId: string, revisionId?: string): Promise<string[]> {
    const test = await requireWorking(this.reads, scope.projectId, scope.branchId, testId);
    let target = test.revisionId;
    if (revisionId) target = (await this.requireSnapshot(scope, testId, revisionId)).id;
    const steps = await stepsJson(await loadStepTree(this.reads, target));
    return jsonWith({}, { data: jsonWith({}, { steps }) });
  }

  async step(scope: Scope, testId: string, stepId: string): Promise<string[]> {
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
    if (!found) throw appError('STEP_NOT_FOUND');
    const step = onlyItem(await stepsJson([found]));
    return jsonWith({}, { data: jsonWith({}, { step, children: await stepsJson(found.children) }) });
  }

  async files(scope: Scope, testId: string) {
    const test = await requireWorking(this.reads, scope.projectId, scope.branchId, testId);
    const rows = await attachmentsOfTest(this.reads, testId);
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
    const row = await findRevisionOfTest(this.reads, {
      projectId: scope.projectId,
      branchId: scope.branchId,
      testId,
      revisionId,
    });
    if (!row) throw appError('REVISION_NOT_FOUND');
    return row;
  }

  async revisions(scope: Scope, testId: string) {
    await requireWorking(this.reads, scope.projectId, scope.branchId, testId);
    const rows = await manualRevisions(this.reads, scope.branchId, testId);
    return rows.map((row) => ({
      id: row.id,
      message: row.message ?? '',
      revisionType: 'manual',
      createdAt: row.createdAt,
    }));
  }

  async revision(scope: Scope, testId: string, revisionId: string): Promise<string[]> {
    const test = await requireWorking(this.reads, scope.projectId, scope.branchId, testId);
    const snapshot = await this.requireSnapshot(scope, testId, revisionId);
    if (snapshot.kind !== 'manual') throw appError('REVISION_NOT_FOUND');
    const steps = await stepsJson(await loadStepTree(this.reads, snapshot.id));
    return jsonWith(
      {},
      {
        data: jsonWith(
          {
            revision: { id: snapshot.id, message: snapshot.message ?? '', createdAt: snapshot.createdAt },
            test: { id: test.id, name: snapshot.name },
          },
          { steps },
        ),
      },
    );
  }
}
