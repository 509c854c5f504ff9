import { randomUUID } from 'node:crypto';
import { type DataSet, dataSet, jsonObject, type RunConfig, runConfig } from '@stepdeck/contract';
import type { Insertable } from 'kysely';
import type { Db, Tx } from '../../adapters/db/index.ts';
import { chunk, fromFlag, readJson, toJson } from '../../adapters/db/index.ts';
import { onPostgres } from '../../adapters/db/locks.ts';
import type { Database } from '../../adapters/db/schema.ts';
import { appError } from '../../errors.ts';
import { tagIdsInOrganization, tagNames } from '../accounts/public.ts';

type Executor = Db | Tx;

export interface WorkingTest {
  id: string;
  projectId: string;
  organizationId: string;
  parentTestId: string | null;
  directory: boolean;
  createdAt: string;
  revisionId: string;
  branchId: string;
  name: string;
  status: 'draft' | 'active' | 'archived';
  type: 'ui' | 'api';
  config: RunConfig;
  vars: Record<string, unknown> | null;
  parameters: Record<string, unknown> | null;
  metadata: Record<string, unknown>;
  /** The table the test runs over, once per row; null: it runs once. */
  dataSet: DataSet | null;
  editVersion: number;
  dirty: boolean;
  stepsCount: number;
  updatedAt: string;
}

const workingColumns = [
  't.id',
  't.projectId',
  't.organizationId',
  't.parentTestId',
  't.directory',
  't.createdAt',
  'r.id as revisionId',
  'r.branchId',
  'r.name',
  'r.status',
  'r.type',
  'r.config',
  'r.vars',
  'r.parameters',
  'r.metadata',
  'r.dataSet',
  'r.editVersion',
  'r.dirty',
  'r.stepsCount',
  'r.updatedAt',
] as const;

type WorkingRow = {
  id: string;
  projectId: string;
  organizationId: string;
  parentTestId: string | null;
  directory: number;
  createdAt: string;
  revisionId: string;
  branchId: string;
  name: string;
  status: 'draft' | 'active' | 'archived';
  type: 'ui' | 'api';
  config: string;
  vars: string | null;
  parameters: string | null;
  metadata: string;
  dataSet: string | null;
  editVersion: number;
  dirty: number;
  stepsCount: number;
  updatedAt: string;
};

export const toWorking = (row: WorkingRow): WorkingTest => ({
  ...row,
  directory: fromFlag(row.directory),
  dirty: fromFlag(row.dirty),
  config: readJson(runConfig, row.config, {}, `testRevisions ${row.revisionId}/config`),
  vars: readJson(jsonObject.nullable(), row.vars, null, `testRevisions ${row.revisionId}/vars`),
  parameters: readJson(
    jsonObject.nullable(),
    row.parameters,
    null,
    `testRevisions ${row.revisionId}/parameters`,
  ),
  metadata: readJson(jsonObject, row.metadata, {}, `testRevisions ${row.revisionId}/metadata`),
  dataSet: readJson(dataSet.nullable(), row.dataSet, null, `testRevisions ${row.revisionId}/dataSet`),
});

const workingQuery = (db: Executor, projectId: string, branchId: string) =>
  db
    .selectFrom('testRevisions as r')
    .innerJoin('tests as t', 't.id', 'r.testId')
    .where('r.branchId', '=', branchId)
    .where('r.kind', '=', 'working')
    .where('r.projectId', '=', projectId);

/**
 * Row lock taken on the working revisions read (PostgreSQL only; see docs/concurrency.md):
 * `update` for operations that change them, `share` for those that copy them.
 */
export type RevisionLock = 'update' | 'share' | undefined;

const locked = <Q extends ReturnType<typeof workingQuery>>(db: Executor, query: Q, lock: RevisionLock): Q => {
  if (!lock || !onPostgres(db)) return query;
  // Revision rows in id order: two operations locking overlapping sets never wait on each other in a cycle.
  const ordered = query.orderBy('r.id') as Q;
  return (lock === 'update' ? ordered.forUpdate('r') : ordered.forShare('r')) as Q;
};

export async function findWorking(
  db: Executor,
  projectId: string,
  branchId: string,
  testId: string,
  lock?: RevisionLock,
) {
  const row = await locked(db, workingQuery(db, projectId, branchId).where('r.testId', '=', testId), lock)
    .select(workingColumns)
    .executeTakeFirst();
  return row ? toWorking(row) : undefined;
}

export async function requireWorking(
  db: Executor,
  projectId: string,
  branchId: string,
  testId: string,
  lock?: RevisionLock,
) {
  const test = await findWorking(db, projectId, branchId, testId, lock);
  if (!test) throw appError('TEST_NOT_FOUND');
  return test;
}

/** Working revisions of several tests; with a lock, every row is locked in one statement in id order. */
export async function findWorkingMany(
  db: Executor,
  projectId: string,
  branchId: string,
  testIds: string[],
  lock?: RevisionLock,
) {
  const out: WorkingTest[] = [];
  const unique = [...new Set(testIds)];
  // A locking read stays one statement (one ordered lock sequence); chunking is for SQLite's
  // bound-parameter limit, which PostgreSQL does not have at these sizes.
  const parts = lock && onPostgres(db) ? [unique] : chunk(unique, 500);
  for (const part of parts) {
    if (part.length === 0) continue;
    const rows = await locked(db, workingQuery(db, projectId, branchId).where('r.testId', 'in', part), lock)
      .select(workingColumns)
      .execute();
    out.push(...rows.map(toWorking));
  }
  return out;
}

/** Every working test of the branch (id, parent, directory, status) for tree walks. */
export async function branchTree(db: Executor, projectId: string, branchId: string) {
  const rows = await workingQuery(db, projectId, branchId)
    .select(['t.id', 't.parentTestId', 't.directory', 'r.status', 'r.name'])
    .execute();
  return rows.map((row) => ({ ...row, directory: fromFlag(row.directory) }));
}

/** The ids of a test and all its descendants on the branch (parents before children). */
export function subtreeIds(
  tree: Array<{ id: string; parentTestId: string | null }>,
  rootIds: string[],
): string[] {
  const children = new Map<string, string[]>();
  for (const node of tree) {
    if (!node.parentTestId) continue;
    const list = children.get(node.parentTestId) ?? [];
    list.push(node.id);
    children.set(node.parentTestId, list);
  }
  const out: string[] = [];
  const seen = new Set<string>();
  const queue = [...rootIds];
  while (queue.length > 0) {
    const id = queue.shift() as string;
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(id);
    queue.push(...(children.get(id) ?? []));
  }
  return out;
}

export async function tagsOf(db: Executor, testIds: string[]) {
  const map = new Map<string, Array<{ id: string; name: string }>>();
  for (const part of chunk([...new Set(testIds)], 500)) {
    if (part.length === 0) continue;
    const links = await db
      .selectFrom('testTags')
      .select(['testId', 'tagId'])
      .where('testId', 'in', part)
      .execute();
    // Tags are the accounts module's: their names come from there.
    const names = await tagNames(
      db,
      links.map((link) => link.tagId),
    );
    // Each test's tags in the order of the names (the database's collation, as before the split).
    const rank = new Map([...names.keys()].map((id, index) => [id, index]));
    links.sort((a, b) => (rank.get(a.tagId) ?? 0) - (rank.get(b.tagId) ?? 0));
    for (const link of links) {
      const name = names.get(link.tagId);
      if (name === undefined) continue;
      const list = map.get(link.testId) ?? [];
      list.push({ id: link.tagId, name });
      map.set(link.testId, list);
    }
  }
  return map;
}

/** Ids of the tags these tests carry. */
export async function tagIdsOfTests(db: Executor, testIds: readonly string[]): Promise<Set<string>> {
  const tags = new Set<string>();
  for (const part of chunk([...new Set(testIds)], 500)) {
    const rows = await db.selectFrom('testTags').select('tagId').where('testId', 'in', part).execute();
    for (const row of rows) tags.add(row.tagId);
  }
  return tags;
}

/** Ids of the tests of the project tagged with this tag. */
export async function testIdsTagged(db: Executor, tagId: string): Promise<string[]> {
  const rows = await db.selectFrom('testTags').select('testId').where('tagId', '=', tagId).execute();
  return rows.map((row) => row.testId);
}

/** These tests and every directory above them (tests of other projects are left out). */
export async function withAncestors(
  db: Executor,
  projectId: string,
  testIds: readonly string[],
): Promise<Set<string>> {
  const covered = new Set(testIds);
  let frontier = [...covered];
  while (frontier.length > 0) {
    const parents = await db
      .selectFrom('tests')
      .select('parentTestId')
      .where('projectId', '=', projectId)
      .where('id', 'in', frontier)
      .where('parentTestId', 'is not', null)
      .execute();
    frontier = [];
    for (const { parentTestId } of parents) {
      if (parentTestId && !covered.has(parentTestId)) {
        covered.add(parentTestId);
        frontier.push(parentTestId);
      }
    }
  }
  return covered;
}

/** Which of these ids are tests of the project. */
export async function testIdsInProject(
  db: Executor,
  projectId: string,
  testIds: readonly string[],
): Promise<Set<string>> {
  const found = new Set<string>();
  for (const part of chunk([...new Set(testIds)], 500)) {
    const rows = await db
      .selectFrom('tests')
      .select('id')
      .where('projectId', '=', projectId)
      .where('id', 'in', part)
      .execute();
    for (const row of rows) found.add(row.id);
  }
  return found;
}

export async function setTags(trx: Executor, testIds: string[], tagIds: string[]) {
  for (const part of chunk(testIds, 500))
    await trx.deleteFrom('testTags').where('testId', 'in', part).execute();
  const rows = testIds.flatMap((testId) => [...new Set(tagIds)].map((tagId) => ({ testId, tagId })));
  for (const part of chunk(rows, 400)) await trx.insertInto('testTags').values(part).execute();
}

export async function requireTagsInOrganization(db: Executor, organizationId: string, tagIds: string[]) {
  const unique = [...new Set(tagIds)];
  if (unique.length === 0) return;
  const found = await tagIdsInOrganization(db, organizationId, unique);
  if (found.size !== unique.length) throw appError('TAG_NOT_FOUND');
}

export type RevisionInput = {
  testId: string;
  projectId: string;
  branchId: string;
  name: string;
  status: 'draft' | 'active' | 'archived';
  type: 'ui' | 'api';
  config: unknown;
  vars: unknown;
  parameters: unknown;
  metadata: unknown;
  dataSet?: DataSet | null;
  stepsCount: number;
  now: string;
  id?: string;
  kind?: 'working' | 'manual';
  message?: string | null;
  dirty?: boolean;
  editVersion?: number;
  /** The test's own creation time (default list order); defaults to `now`. */
  testCreatedAt?: string;
};

/** The row of a revision (working by default), for single or batched inserts. */
export function revisionRow(input: RevisionInput) {
  return {
    id: input.id ?? randomUUID(),
    testId: input.testId,
    projectId: input.projectId,
    branchId: input.branchId,
    kind: input.kind ?? ('working' as const),
    name: input.name,
    nameLower: input.name.toLowerCase(),
    status: input.status,
    type: input.type,
    config: toJson(input.config ?? {}),
    vars: input.vars === null || input.vars === undefined ? null : toJson(input.vars),
    parameters: input.parameters === null || input.parameters === undefined ? null : toJson(input.parameters),
    metadata: toJson(input.metadata ?? {}),
    dataSet: input.dataSet ? toJson(input.dataSet) : null,
    editVersion: input.editVersion ?? 1,
    dirty: input.dirty === false ? 0 : 1,
    message: input.message ?? null,
    stepsCount: input.stepsCount,
    testCreatedAt: input.testCreatedAt ?? input.now,
    createdAt: input.now,
    updatedAt: input.now,
  };
}

export async function insertWorkingRevision(trx: Executor, input: RevisionInput) {
  const row = revisionRow(input);
  await trx.insertInto('testRevisions').values(row).execute();
  return row.id;
}

/** Locks revisions by id for update, in id order (PostgreSQL; SQLite transactions are serial). */
export async function lockRevisions(trx: Executor, revisionIds: string[]): Promise<void> {
  if (revisionIds.length === 0 || !onPostgres(trx)) return;
  await trx
    .selectFrom('testRevisions')
    .select('id')
    .where('id', 'in', [...new Set(revisionIds)])
    .orderBy('id')
    .forUpdate()
    .execute();
}

/** Every column of a branch's working revisions (copied whole when a branch is created). */
export async function workingRevisionRowsOfBranch(trx: Executor, projectId: string, branchId: string) {
  return trx
    .selectFrom('testRevisions')
    .selectAll()
    .where('branchId', '=', branchId)
    .where('projectId', '=', projectId)
    .where('kind', '=', 'working')
    .execute();
}

/** Inserts whole revision rows, 100 per statement. */
export async function insertRevisionRows(trx: Executor, rows: Array<Insertable<Database['testRevisions']>>) {
  for (const part of chunk(rows, 100)) await trx.insertInto('testRevisions').values(part).execute();
}
