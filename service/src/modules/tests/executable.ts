import type { LeftOutTest } from '@stepdeck/contract';
import type { BlobStore } from '../../adapters/blobs/index.ts';
import type { Db } from '../../adapters/db/index.ts';
import { chunk } from '../../adapters/db/index.ts';
import { appError } from '../../errors.ts';
import type { CompilableTest } from '../../runner/compiler/types.ts';
import { findTag } from '../accounts/public.ts';
import { loadStepTrees, type StepView, toStepNodes } from '../step-trees/public.ts';
import { attachmentRowsOfTestsInProject, stepAttachmentRowsInProject } from './attachments-repository.ts';
import { branchTree, findWorkingMany, subtreeIds, testIdsTagged } from './repository.ts';

/**
 * What the runs module needs from tests: which leaf tests a run target expands to, the
 * tests as compiler input (the project's secrets for the runner's environment:
 * `secrets-repository.ts`).
 */
export async function expandRunTargets(
  db: Db,
  input: {
    projectId: string;
    branchId: string;
    testIds?: string[];
    tagId?: string;
    organizationId: string;
    /**
     * The run names one leaf test by itself (`POST /v1/tests/:testId/remote-run`): it runs
     * whatever its status. The spec excludes draft and archived tests only from directory, tag
     * and bulk runs, and a new test is a draft until someone marks it active.
     */
    leafRunsAnyStatus?: boolean;
  },
): Promise<{
  tests: Array<{ id: string; name: string }>;
  /** The target's tests that a directory, tag or bulk run leaves out, and why (their status). */
  leftOut: LeftOutTest[];
  target: { type: 'test' | 'directory' | 'tag'; id: string; name: string };
}> {
  const tree = await branchTree(db, input.projectId, input.branchId);
  const byId = new Map(tree.map((node) => [node.id, node]));
  const leaves = (ids: string[]) =>
    ids
      .map((id) => byId.get(id))
      .filter((node): node is NonNullable<typeof node> => !!node && !node.directory);
  const runnable = (ids: string[]) =>
    leaves(ids)
      .filter((node) => node.status === 'active')
      .map((node) => ({ id: node.id, name: node.name }));
  const notRunnable = (ids: string[]): LeftOutTest[] =>
    leaves(ids)
      .filter((node) => node.status !== 'active')
      .map((node) => ({ testId: node.id, name: node.name, status: node.status as LeftOutTest['status'] }));

  if (input.tagId) {
    const tag = await findTag(db, input.organizationId, input.tagId);
    if (!tag) throw appError('TAG_NOT_FOUND');
    const ids = (await testIdsTagged(db, tag.id)).filter((id) => byId.has(id));
    const subtree = subtreeIds(tree, ids);
    return {
      tests: runnable(subtree),
      leftOut: notRunnable(subtree),
      target: { type: 'tag', id: tag.id, name: tag.name },
    };
  }

  const testIds = [...new Set(input.testIds ?? [])];
  for (const id of testIds) if (!byId.has(id)) throw appError('TEST_NOT_FOUND');
  const first = byId.get(testIds[0] ?? '');
  if (!first) throw appError('TEST_NOT_FOUND');
  const type = testIds.length === 1 && !first.directory ? 'test' : 'directory';
  const target = { type, id: first.id, name: first.name } as const;
  if (type === 'test' && input.leafRunsAnyStatus)
    return { tests: [{ id: first.id, name: first.name }], leftOut: [], target };
  const subtree = subtreeIds(tree, testIds);
  return { tests: runnable(subtree), leftOut: notRunnable(subtree), target };
}

/** Tests with resolved step trees (shared steps inlined) and their files, ready for the compiler. */
export async function loadCompilableTests(
  db: Db,
  blobs: BlobStore,
  input: { projectId: string; branchId: string; testIds: string[] },
): Promise<CompilableTest[]> {
  const tests = await findWorkingMany(db, input.projectId, input.branchId, input.testIds);
  const trees = await loadStepTrees(
    db,
    tests.map((test) => test.revisionId),
  );
  const files = new Map<string, CompilableTest['files']>();
  for (const part of chunk(input.testIds, 500)) {
    if (part.length === 0) continue;
    const rows = await attachmentRowsOfTestsInProject(db, input.projectId, part);
    for (const row of rows) {
      if (!row.testId) continue;
      const content = await blobs.get(row.blobKey);
      if (!content) continue;
      const list = files.get(row.testId) ?? [];
      list.push({ filename: row.filename, content, stepId: '' });
      files.set(row.testId, list);
    }
  }
  // Files uploaded to shared steps (PUT /v1/steps/:stepId/update) belong to the canonical step:
  // every test whose tree uses that step gets them.
  const stepFiles = new Map<string, Array<{ filename: string; content: Buffer }>>();
  const canonicalIds = new Set<string>();
  const collect = (views: StepView[]) => {
    for (const view of views) {
      if (view.shared || view.action.name === 'setInputFiles') canonicalIds.add(view.stepId);
      collect(view.children);
    }
  };
  for (const views of trees.values()) collect(views);
  for (const part of chunk([...canonicalIds], 500)) {
    if (part.length === 0) continue;
    const rows = await stepAttachmentRowsInProject(db, input.projectId, part);
    for (const row of rows) {
      if (!row.stepId) continue;
      const content = await blobs.get(row.blobKey);
      if (!content) continue;
      const list = stepFiles.get(row.stepId) ?? [];
      list.push({ filename: row.filename, content });
      stepFiles.set(row.stepId, list);
    }
  }
  const order = new Map(input.testIds.map((id, index) => [id, index]));
  return tests
    .sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0))
    .map((test) => {
      const views = trees.get(test.revisionId) ?? [];
      const testFiles = [...(files.get(test.id) ?? [])];
      addStepFiles(views, stepFiles, testFiles);
      assignFileSteps(views, testFiles);
      return {
        id: test.id,
        name: test.name,
        type: test.type,
        config: test.config as Record<string, unknown>,
        vars: test.vars,
        parameters: test.parameters,
        dataSet: test.dataSet,
        steps: toStepNodes(views),
        files: testFiles,
      };
    });
}

/** A shared step's own files, attached to the step that uses them (the test's file wins by name). */
function addStepFiles(
  views: StepView[],
  stepFiles: Map<string, Array<{ filename: string; content: Buffer }>>,
  files: CompilableTest['files'],
) {
  for (const view of views) {
    for (const file of stepFiles.get(view.stepId) ?? [])
      if (!files.some((existing) => existing.filename === file.filename))
        files.push({ filename: file.filename, content: file.content, stepId: view.id });
    addStepFiles(view.children, stepFiles, files);
  }
}

function assignFileSteps(views: StepView[], files: CompilableTest['files']) {
  for (const view of views) {
    const names = view.action.files;
    if (view.action.name === 'setInputFiles' && Array.isArray(names))
      for (const file of files) if (!file.stepId && names.includes(file.filename)) file.stepId = view.id;
    assignFileSteps(view.children, files);
  }
}
