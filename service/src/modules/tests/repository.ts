import { randomUUID } from 'node:crypto';
import { jsonObject, type ListTestsQuery, type RunConfig, runConfig } from '@stepdeck/contract';
import { sql } from 'kysely';
import type { Db, Tx } from '../../adapters/db/index.ts';
import { fromFlag, readJson, toJson } from '../../adapters/db/index.ts';
import { onPostgres } from '../../adapters/db/locks.ts';
import { notFound } from '../../errors.ts';
import { chunk } from './steps-store.ts';

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
  if (!test) throw notFound('Test not found');
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
    const rows = await db
      .selectFrom('testTags')
      .innerJoin('tags', 'tags.id', 'testTags.tagId')
      .select(['testTags.testId', 'tags.id', 'tags.name'])
      .where('testTags.testId', 'in', part)
      .orderBy('tags.name')
      .execute();
    for (const row of rows) {
      const list = map.get(row.testId) ?? [];
      list.push({ id: row.id, name: row.name });
      map.set(row.testId, list);
    }
  }
  return map;
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
  const found = await db
    .selectFrom('tags')
    .select('id')
    .where('organizationId', '=', organizationId)
    .where('id', 'in', unique)
    .execute();
  if (found.length !== unique.length) throw notFound('Tag not found');
}

/**
 * LIMIT/OFFSET of a page, or undefined past the last page. `page × limit` may pass the
 * databases' 64-bit integers (both are only bounded by JavaScript's safe integers), so a page
 * past the end is answered without a query, and within the end both numbers are below `total`.
 */
export function pageWindow(page: number, limit: number, total: number) {
  const offset = page * limit;
  if (offset >= total) return undefined;
  return { offset, limit: Math.min(limit, total - offset) };
}

const escapeLike = (value: string) => value.replace(/[\\%_]/g, (char) => `\\${char}`);

/**
 * `GET /v1/tests`: filters and sorts in SQL, one page, plus the total. Two phases keep it
 * fast on large projects: the filter/sort/page runs on narrow rows (ids and sort keys only),
 * then the page's full rows and their children counts are read by id.
 */
export async function listWorking(
  db: Db,
  input: { projectId: string; branchId: string; query: ListTestsQuery },
) {
  const { projectId, branchId, query } = input;
  // The branch belongs to the project (checked by scopeOf), so no projectId filter: the
  // per-sort indexes then cover the filter and the page query.
  let base = db
    .selectFrom('testRevisions as r')
    .where('r.branchId', '=', branchId)
    .where('r.kind', '=', 'working');
  if (query.name)
    base = base.where(
      sql<boolean>`r."nameLower" like ${`%${escapeLike(query.name.toLowerCase())}%`} escape '\\'`,
    );
  if (query.status && query.status.length > 0) base = base.where('r.status', 'in', query.status);
  if (query.type !== 'all') base = base.where('r.type', '=', query.type);
  if (query.testId) {
    const parentId = query.testId;
    base = base.where('r.testId', 'in', (eb) =>
      eb.selectFrom('tests as p').select('p.id').where('p.parentTestId', '=', parentId),
    );
  }
  if (query.tagIds && query.tagIds.length > 0) {
    const tagIds = query.tagIds;
    base = base.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('testTags')
          .select('testTags.tagId')
          .whereRef('testTags.testId', '=', 'r.testId')
          .where('testTags.tagId', 'in', tagIds),
      ),
    );
  }
  // Independent reads run side by side (on PostgreSQL, on separate connections of the read
  // pool): a list costs two round trips instead of five, which is what a read waits on when
  // writers keep the event loop and the server busy.
  const counted = base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirst();
  const direction = query.sortOrder ?? 'asc';
  let ids = base.select('r.testId');
  if (query.sortBy === 'name') ids = ids.orderBy('r.nameLower', direction);
  else if (query.sortBy === 'status') ids = ids.orderBy('r.status', direction);
  else if (query.sortBy === 'updatedAt') ids = ids.orderBy('r.updatedAt', direction);
  else ids = ids.orderBy('r.testCreatedAt', direction);
  ids = ids.orderBy('r.testId', direction);
  const paginate = !query.testId;
  // An offset JavaScript cannot count exactly is far past any real last page (and past the
  // databases' 64-bit integers): the page is empty without a query.
  const offset = query.page * query.limit;
  const page = !paginate
    ? ids.execute()
    : Number.isSafeInteger(offset)
      ? ids.limit(query.limit).offset(offset).execute()
      : Promise.resolve([]);
  const [countRow, pageRows] = await Promise.all([counted, page]);
  const total = Number(countRow?.total ?? 0);
  const pageIds = pageRows.map((row) => row.testId);
  // A leaf has no children, so counting for every id of the page gives 0 for leaves.
  const [rows, counts, tags] = await Promise.all([
    findWorkingMany(db, projectId, branchId, pageIds),
    childrenCounts(db, branchId, pageIds),
    tagsOf(db, pageIds),
  ]);
  const byId = new Map(rows.map((row) => [row.id, row]));
  return {
    rows: pageIds.flatMap((id) => {
      const row = byId.get(id);
      return row ? [{ ...row, childrenCount: counts.get(id) ?? 0 }] : [];
    }),
    tags,
    total,
    paginate,
  };
}

/** Number of direct children on the branch, for each of the given tests. */
async function childrenCounts(db: Executor, branchId: string, testIds: string[]) {
  const counts = new Map<string, number>();
  for (const part of chunk(testIds, 500)) {
    if (part.length === 0) continue;
    // Driven by the parent index; the branch check is a per-child lookup (not a branch scan).
    const rows = await db
      .selectFrom('tests as c')
      .select(['c.parentTestId', (eb) => eb.fn.countAll<number>().as('n')])
      .where('c.parentTestId', 'in', part)
      .where(({ exists, selectFrom }) =>
        exists(
          selectFrom('testRevisions as cr')
            .select('cr.id')
            .whereRef('cr.testId', '=', 'c.id')
            .where('cr.branchId', '=', branchId)
            .where('cr.kind', '=', 'working'),
        ),
      )
      .groupBy('c.parentTestId')
      .execute();
    for (const row of rows) if (row.parentTestId) counts.set(row.parentTestId, Number(row.n));
  }
  return counts;
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
