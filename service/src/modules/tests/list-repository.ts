import type { ListTestsQuery } from '@stepdeck/contract';
import { sql } from 'kysely';
import type { Db, Tx } from '../../adapters/db/index.ts';
import { chunk } from '../../adapters/db/index.ts';
import { findWorkingMany, tagsOf } from './repository.ts';

/** `GET /v1/tests`: the filtered, sorted page of working tests and its total. */

type Executor = Db | Tx;

/**
 * LIMIT/OFFSET of a page, or undefined past the last page. `page × limit` may pass the
 * databases' 64-bit integers (both are only bounded by JavaScript's safe integers), so a page
 * past the end is answered without a query, and within the end both numbers are below `total`.
 */
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
  if (query.topLevel === 'true')
    base = base.where('r.testId', 'in', (eb) =>
      eb.selectFrom('tests as p').select('p.id').where('p.parentTestId', 'is', null),
    );
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
