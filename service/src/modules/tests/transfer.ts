import { randomUUID } from 'node:crypto';
import { type DataSet, type StepInput, testExportFormatVersion } from '@stepdeck/contract';
import type { BlobStore } from '../../adapters/blobs/index.ts';
import type { Db } from '../../adapters/db/index.ts';
import { toFlag } from '../../adapters/db/index.ts';
import { lockTestTree } from '../../adapters/db/locks.ts';
import { type Clock, isoNow } from '../../clock.ts';
import { appError } from '../../errors.ts';
import { ensureTags } from '../accounts/public.ts';
import {
  defaultStepLimits,
  loadStepTrees,
  type NormalizedStep,
  type normalizeSteps,
  overLimits,
  refuseOverLimits,
  revisionSizes,
  type StepLimits,
  type StepView,
  StepWriter,
  sizeOfSteps,
  stepBytes,
  type TreeSize,
} from '../step-trees/public.ts';
import { type ArchiveContents, importLimits, readExportArchive, zipFiles } from './archive.ts';
import { loadCompilableTests } from './executable.ts';
import { branchTree, findWorkingMany, revisionRow, subtreeIds, tagsOf } from './repository.ts';
import { loadProjectSecrets } from './secrets-repository.ts';
import { type Scope, storeAttachments, type TestsService, testTypeOf } from './service.ts';
import {
  insertRevisionRows,
  insertTagLinks,
  insertTestRows,
  testIdsTaggedAny,
} from './transfer-repository.ts';

/**
 * Export caps: the spec's 10000 tests, and the steps of all of them together (every node, shared
 * steps expanded, and their stored bytes, as MAX_STEPS_PER_TEST and MAX_STEP_TREE_BYTES measure
 * one test), so one export holds a bounded amount in memory and its archive fits what an import
 * reads back (`importLimits.maxTotalBytes`, 256 MiB). An object so tests can lower them.
 */
export const exportLimits = { maxTests: 10_000, maxSteps: 250_000, maxStepBytes: 128 * 1024 * 1024 };
/** Imports running at once; more answer 429 with Retry-After (the upload is already in memory). */
export const importConcurrency = { max: 2, retryAfterSeconds: 5 };
let importsRunning = 0;

export { importLimits };

interface ExportedTest {
  id: string;
  parentId: string | null;
  name: string;
  status: 'draft' | 'active' | 'archived';
  directory: boolean;
  config: Record<string, unknown>;
  vars: Record<string, unknown> | null;
  parameters: Record<string, unknown> | null;
  metadata: Record<string, unknown>;
  dataSet?: DataSet;
  tags: string[];
  steps: StepInput[];
  files: Array<{ filename: string; content: string }>;
}

interface ExportedSharedStep {
  id: string;
  name: string;
  action: Record<string, unknown>;
  condition: unknown;
  metadata: unknown;
  group: boolean;
  children: StepInput[];
}

const slug = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 60) || 'test';

const viewsToExport = (views: StepView[], shared: Map<string, StepView>): StepInput[] =>
  views.map((view) => {
    if (view.shared) {
      shared.set(view.stepId, view);
      return { shared: true, stepId: view.stepId, name: view.name };
    }
    return {
      name: view.name,
      action: view.action,
      ...(view.condition ? { condition: view.condition } : {}),
      ...(view.metadata ? { metadata: view.metadata } : {}),
      ...(view.group ? { children: viewsToExport(view.children, shared) } : {}),
    };
  });

export class TransferService {
  private readonly db: Db;
  private readonly blobs: BlobStore;
  private readonly clock: Clock;
  private readonly tests: TestsService;
  /** `MAX_STEPS_PER_TEST` and `MAX_STEP_TREE_BYTES`: an imported test past them is left out. */
  private readonly limits: StepLimits;

  constructor(options: { db: Db; blobs: BlobStore; clock: Clock; tests: TestsService; limits?: StepLimits }) {
    this.db = options.db;
    this.blobs = options.blobs;
    this.clock = options.clock;
    this.tests = options.tests;
    this.limits = options.limits ?? defaultStepLimits;
  }

  private async select(
    scope: Scope,
    body: { testIds?: string[] | undefined; tagIds?: string[] | undefined; directoryId?: string | undefined },
  ) {
    if (!body.testIds?.length && !body.tagIds?.length && !body.directoryId)
      throw appError('EXPORT_SELECTION_REQUIRED');
    const tree = await branchTree(this.db, scope.projectId, scope.branchId);
    const known = new Set(tree.map((node) => node.id));
    const roots: string[] = [];
    for (const id of [...(body.testIds ?? []), ...(body.directoryId ? [body.directoryId] : [])]) {
      if (!known.has(id)) throw appError('TEST_NOT_FOUND');
      roots.push(id);
    }
    if (body.tagIds?.length) {
      const tagged = await testIdsTaggedAny(this.db, body.tagIds);
      roots.push(...tagged.filter((id) => known.has(id)));
    }
    return subtreeIds(tree, roots);
  }

  async export(
    scope: Scope,
    body: {
      testIds?: string[] | undefined;
      tagIds?: string[] | undefined;
      directoryId?: string | undefined;
      format: 'json' | 'pw';
    },
  ): Promise<{ zip: Buffer; filename: string }> {
    const ids = await this.select(scope, body);
    if (ids.length > exportLimits.maxTests)
      throw appError('EXPORT_TOO_MANY_TESTS', exportLimits.maxTests, ids.length);
    if (ids.length === 0) throw appError('EXPORT_SELECTION_EMPTY');
    await this.requireExportable(scope, ids);
    const filename = ids.length === 1 ? 'service-test.zip' : 'service-tests.zip';
    if (body.format === 'pw') {
      const compiler = await import('../../runner/compiler/index.ts');
      const leaves = (await findWorkingMany(this.db, scope.projectId, scope.branchId, ids)).filter(
        (test) => !test.directory,
      );
      const tests = await loadCompilableTests(this.db, this.blobs, {
        projectId: scope.projectId,
        branchId: scope.branchId,
        testIds: ids.filter((id) => leaves.some((leaf) => leaf.id === id)),
      });
      const secretNames = Object.keys(await loadProjectSecrets(this.db, scope.projectId));
      const project = compiler.compileProject({ tests, config: null, secretNames });
      return { zip: await zipFiles(project.files), filename };
    }
    const tests = await findWorkingMany(this.db, scope.projectId, scope.branchId, ids);
    const byId = new Map(tests.map((test) => [test.id, test]));
    const trees = await loadStepTrees(
      this.db,
      tests.map((test) => test.revisionId),
    );
    const tags = await tagsOf(this.db, ids);
    const attachments = await this.tests.loadAttachmentsFor(ids);
    const shared = new Map<string, StepView>();
    const files = new Map<string, Buffer | string>();
    const names: string[] = [];
    ids.forEach((id, index) => {
      const test = byId.get(id);
      if (!test) return;
      const doc: ExportedTest = {
        id: test.id,
        parentId: test.parentTestId && byId.has(test.parentTestId) ? test.parentTestId : null,
        name: test.name,
        status: test.status,
        directory: test.directory,
        config: test.config as Record<string, unknown>,
        vars: test.vars,
        parameters: test.parameters,
        metadata: { ...test.metadata, type: test.type },
        ...(test.dataSet ? { dataSet: test.dataSet } : {}),
        tags: (tags.get(id) ?? []).map((tag) => tag.name),
        steps: viewsToExport(trees.get(test.revisionId) ?? [], shared),
        files: (attachments.get(id) ?? []).map((file) => ({
          filename: file.filename,
          content: file.content.toString('base64'),
        })),
      };
      const name = `tests/${String(index + 1).padStart(5, '0')}-${slug(test.name)}.json`;
      names.push(name);
      files.set(name, JSON.stringify(doc, null, 1));
    });
    const sharedSteps: ExportedSharedStep[] = [...shared.values()].map((view) => ({
      id: view.stepId,
      name: view.name,
      action: view.action,
      condition: view.condition,
      metadata: view.metadata,
      group: view.group,
      children: viewsToExport(view.children, new Map()),
    }));
    files.set('shared-steps.json', JSON.stringify(sharedSteps, null, 1));
    files.set(
      'manifest.json',
      JSON.stringify(
        {
          format: 'stepdeck-tests',
          formatVersion: testExportFormatVersion,
          exportedAt: isoNow(this.clock),
          tests: names,
          sharedSteps: 'shared-steps.json',
        },
        null,
        1,
      ),
    );
    return { zip: await zipFiles(files), filename };
  }

  /** Refuses (400) an export whose tests' steps together pass `exportLimits`, before loading them. */
  private async requireExportable(scope: Scope, ids: string[]) {
    const tests = await findWorkingMany(this.db, scope.projectId, scope.branchId, ids);
    const sizes = await revisionSizes(
      this.db,
      tests.map((test) => test.revisionId),
    );
    let steps = 0;
    let bytes = 0;
    for (const size of sizes.values()) {
      steps += size.steps;
      bytes += size.bytes;
    }
    if (steps > exportLimits.maxSteps)
      throw appError('EXPORT_TOO_MANY_STEPS', exportLimits.maxSteps, ids.length, steps);
    if (bytes > exportLimits.maxStepBytes)
      throw appError('EXPORT_TOO_MANY_BYTES', exportLimits.maxStepBytes, ids.length, bytes);
  }

  async import(scope: Scope, zip: Buffer | undefined) {
    if (!zip) throw appError('IMPORT_FILE_REQUIRED');
    if (importsRunning >= importConcurrency.max)
      throw appError('IMPORTS_BUSY', importConcurrency.max).retryAfter(importConcurrency.retryAfterSeconds);
    importsRunning += 1;
    try {
      return await this.importArchive(scope, zip);
    } finally {
      importsRunning -= 1;
    }
  }

  private async importArchive(scope: Scope, zip: Buffer) {
    const archive = await readExportArchive(zip);
    const { docs, sharedSteps, errors } = withinLimits(archive, this.limits);
    // Parents before children; a test whose parent is missing is imported at the root.
    const docIds = new Set(docs.map((entry) => entry.doc.id));
    const ordered = subtreeIds(
      docs.map((entry) => ({ id: entry.doc.id, parentTestId: entry.doc.parentId })),
      docs
        .filter((entry) => !entry.doc.parentId || !docIds.has(entry.doc.parentId))
        .map((entry) => entry.doc.id),
    );
    const byId = new Map(docs.map((entry) => [entry.doc.id, entry]));
    const now = isoNow(this.clock);
    const counts = { tests: 0, sharedSteps: 0, tags: 0, steps: 0 };
    await this.db.transaction().execute(async (trx) => {
      // Tests are created under parents: the tree lock first, like every create path.
      await lockTestTree(trx, scope.branchId, 'shared');
      // Tags by name, created in the organization when missing.
      const tagNames = [...new Set(docs.flatMap((entry) => entry.doc.tags ?? []))];
      const { ids: tagIds, created } = await ensureTags(trx, scope.organizationId, tagNames, now);
      counts.tags += created;
      // Shared steps get new ids; references are remapped.
      const sharedMap = new Map<string, string>();
      const remap = (steps: ReturnType<typeof normalizeSteps>): ReturnType<typeof normalizeSteps> =>
        steps.map((step) => ({
          ...step,
          ...(step.sharedRef ? { sharedRef: sharedMap.get(step.sharedRef) } : {}),
          children: remap(step.children),
        }));
      const sharedWriter = new StepWriter(scope.projectId, 'ui', now);
      for (const { doc, step } of sharedSteps) {
        if (!step) continue;
        sharedMap.set(doc.id, sharedWriter.canonical(step, true));
        counts.sharedSteps += 1;
      }
      // Children of shared groups are linked once every shared step has its new id: a reference
      // to another shared step of the archive is remapped like a test's, never linked by the
      // archive's id (which could name a step of another project).
      for (const { doc, step } of sharedSteps)
        if (step?.group)
          sharedWriter.sharedGroupChildren(sharedMap.get(doc.id) as string, remap(step.children));
      await sharedWriter.flush(trx);
      // Rows are collected for every test and written in batches (a 10000-test archive would
      // otherwise cost several statements per test).
      const newIds = new Map<string, string>();
      const testRows: Array<{
        id: string;
        projectId: string;
        organizationId: string;
        parentTestId: string | null;
        directory: number;
        createdAt: string;
        updatedAt: string;
      }> = [];
      const revisionRows: Array<ReturnType<typeof revisionRow>> = [];
      const tagRows: Array<{ testId: string; tagId: string }> = [];
      const uploads: Array<{ testId: string; files: Array<{ filename: string; content: Buffer }> }> = [];
      const writers = {
        ui: new StepWriter(scope.projectId, 'ui', now),
        api: new StepWriter(scope.projectId, 'api', now),
      };
      for (const id of ordered) {
        const entry = byId.get(id);
        if (!entry) continue;
        const { doc } = entry;
        const testId = randomUUID();
        newIds.set(doc.id, testId);
        testRows.push({
          id: testId,
          projectId: scope.projectId,
          organizationId: scope.organizationId,
          parentTestId: doc.parentId ? (newIds.get(doc.parentId) ?? null) : null,
          directory: toFlag(Boolean(doc.directory)),
          createdAt: now,
          updatedAt: now,
        });
        const type = testTypeOf(doc.metadata as { type?: 'ui' | 'api' });
        const revisionId = randomUUID();
        const stepsCount = writers[type].tree(revisionId, remap(entry.steps));
        revisionRows.push(
          revisionRow({
            id: revisionId,
            testId,
            projectId: scope.projectId,
            branchId: scope.branchId,
            name: doc.name,
            status: doc.status ?? 'draft',
            type,
            config: doc.config ?? {},
            vars: doc.vars ?? null,
            parameters: doc.parameters ?? null,
            metadata: { description: (doc.metadata?.description as string | undefined) ?? '' },
            dataSet: entry.dataSet,
            stepsCount,
            now,
          }),
        );
        for (const name of new Set(doc.tags ?? [])) {
          const tagId = tagIds.get(name);
          if (tagId) tagRows.push({ testId, tagId });
        }
        if (doc.files?.length)
          uploads.push({
            testId,
            files: doc.files.map((file) => ({
              filename: file.filename,
              content: Buffer.from(file.content, 'base64'),
            })),
          });
        counts.tests += 1;
        counts.steps += stepsCount;
      }
      await insertTestRows(trx, testRows);
      await insertRevisionRows(trx, revisionRows);
      await writers.ui.flush(trx);
      await writers.api.flush(trx);
      await insertTagLinks(trx, tagRows);
      for (const upload of uploads)
        await storeAttachments(
          trx,
          this.blobs,
          { projectId: scope.projectId, testId: upload.testId },
          upload.files,
          now,
        );
    });
    return { imported: counts, errors };
  }
}

/**
 * Leaves out (named in `errors`) each shared step and test document whose step tree would pass
 * MAX_STEPS_PER_TEST or MAX_STEP_TREE_BYTES once written, shared steps of the archive expanded
 * as `loadStepTrees` expands them (21 levels below the node using them).
 */
function withinLimits(archive: ArchiveContents, limits: StepLimits): ArchiveContents {
  const errors = [...archive.errors];
  const byId = new Map<string, NormalizedStep>();
  for (const { doc, step } of archive.sharedSteps) if (step) byId.set(doc.id, step);
  const memo = new Map<string, TreeSize>();
  const zero: TreeSize = { steps: 0, bytes: 0 };
  const plus = (a: TreeSize, b: TreeSize): TreeSize => ({
    steps: a.steps + b.steps,
    bytes: a.bytes + b.bytes,
  });
  /** What children of a shared group add at this level below the node using the group. */
  const below = (children: NormalizedStep[], depth: number): TreeSize => {
    if (depth > 20) return zero;
    let size = zero;
    for (const child of children) {
      const target = child.sharedRef ? byId.get(child.sharedRef) : child;
      if (!target) {
        size = plus(size, { steps: 1, bytes: stepBytes(child) });
        continue;
      }
      size = plus(size, { steps: 1, bytes: stepBytes(target) });
      if (target.group)
        size = plus(
          size,
          child.sharedRef ? expanded(child.sharedRef, depth + 1) : below(target.children, depth + 1),
        );
    }
    return size;
  };
  const expanded = (id: string, depth: number): TreeSize => {
    const key = `${depth}:${id}`;
    const known = memo.get(key);
    if (known) return known;
    const size = below(byId.get(id)?.children ?? [], depth);
    memo.set(key, size);
    return size;
  };
  const referenced = new Map<string, TreeSize>();
  for (const [id, step] of byId)
    referenced.set(id, plus({ steps: 1, bytes: stepBytes(step) }, step.group ? expanded(id, 0) : zero));
  const refused = (file: string, name: string, size: TreeSize): boolean => {
    if (!overLimits(limits, size)) return false;
    try {
      refuseOverLimits(limits, size, { who: name });
    } catch (error) {
      errors.push({ file, error: (error as Error).message });
    }
    return true;
  };
  const sharedSteps = archive.sharedSteps.filter(
    ({ doc, step }) =>
      !step || !refused('shared-steps.json', `shared step "${doc.name}"`, referenced.get(doc.id) ?? zero),
  );
  // A test using a shared step left out is measured with it (as written it would hold it).
  const docs = archive.docs.filter(
    (entry) => !refused(entry.file, `test "${entry.doc.name}"`, sizeOfSteps(entry.steps, referenced)),
  );
  return { docs, sharedSteps, errors };
}
