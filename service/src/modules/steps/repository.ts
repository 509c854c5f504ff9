import { sql } from 'kysely';
import type { Db, Tx } from '../../adapters/db/index.ts';
import { fromFlag } from '../../adapters/db/index.ts';
import { pageWindow } from '../tests/repository.ts';
import type { StepRow } from '../tests/steps-store.ts';

/** The steps module's SQL: canonical steps, shared-group links and the trees that use them. */

type Executor = Db | Tx;
type Scope = { projectId: string; branchId: string };

const stepColumns = [
  's.id',
  's.projectId',
  's.name',
  's.action',
  's.metadata',
  's.condition',
  's.shared',
  's.isGroup',
  's.type',
] as const;

/** A step is visible on a branch when a working revision there uses it, or when nothing uses it. */
const visibleOn = (branchId: string) =>
  sql<boolean>`(exists (select 1 from "revisionSteps" rs inner join "testRevisions" r on r.id = rs."revisionId" where rs."stepId" = s.id and r.kind = 'working' and r."branchId" = ${branchId})
      or exists (select 1 from "stepChildren" sc where sc."childStepId" = s.id)
      or not exists (select 1 from "revisionSteps" rs2 inner join "testRevisions" r2 on r2.id = rs2."revisionId" where rs2."stepId" = s.id and r2.kind = 'working'))`;

export async function findVisibleStep(
  db: Executor,
  scope: Scope,
  stepId: string,
): Promise<StepRow | undefined> {
  return db
    .selectFrom('steps as s')
    .select(stepColumns)
    .where('s.id', '=', stepId)
    .where('s.projectId', '=', scope.projectId)
    .where(visibleOn(scope.branchId))
    .executeTakeFirst();
}

/** One page of the shared steps visible on the branch, by name, and their total. */
export async function sharedStepsPage(
  db: Executor,
  scope: Scope,
  query: { limit: number; page: number; search?: string | undefined; type: 'all' | 'ui' | 'api' },
) {
  let base = db
    .selectFrom('steps as s')
    .where('s.projectId', '=', scope.projectId)
    .where('s.shared', '=', 1)
    .where(visibleOn(scope.branchId));
  if (query.search)
    base = base.where(
      sql<boolean>`s."nameLower" like ${`%${query.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`} escape '\\'`,
    );
  if (query.type !== 'all') base = base.where('s.type', '=', query.type);
  const total = Number(
    (await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst())?.n ?? 0,
  );
  const window = pageWindow(query.page, query.limit, total);
  const rows: StepRow[] = !window
    ? []
    : await base
        .select(stepColumns)
        .orderBy('s.nameLower')
        .orderBy('s.id')
        .limit(window.limit)
        .offset(window.offset)
        .execute();
  return { rows, total };
}

/** The ordered children of a shared group, with their link ids. */
export async function groupChildren(db: Executor, groupId: string) {
  return db
    .selectFrom('stepChildren as c')
    .innerJoin('steps as s', 's.id', 'c.childStepId')
    .select(['c.id as linkId', 's.id', 's.name', 's.action', 'c.position'])
    .where('c.parentStepId', '=', groupId)
    .orderBy('c.position')
    .execute();
}

/** Working revisions (with branch) whose trees reference a canonical step directly. */
export async function usages(db: Executor, projectId: string, stepId: string) {
  return db
    .selectFrom('revisionSteps as rs')
    .innerJoin('testRevisions as r', 'r.id', 'rs.revisionId')
    .innerJoin('branches as b', 'b.id', 'r.branchId')
    .select(['r.id as revisionId', 'r.testId', 'r.name', 'r.branchId', 'b.name as branchName'])
    .where('rs.stepId', '=', stepId)
    .where('r.kind', '=', 'working')
    .where('r.projectId', '=', projectId)
    .execute();
}

export async function deleteNodes(trx: Executor, revisionId: string, ids: string[]) {
  let frontier = ids;
  while (frontier.length > 0) {
    const children = await trx
      .selectFrom('revisionSteps')
      .select('id')
      .where('revisionId', '=', revisionId)
      .where('parentId', 'in', frontier)
      .execute();
    await trx.deleteFrom('revisionSteps').where('id', 'in', frontier).execute();
    frontier = children.map((child) => child.id);
  }
}

/** Removes a non-shared canonical step (and its linked children) nothing references any more. */
export async function deleteIfOrphan(trx: Executor, stepId: string, depth = 0): Promise<void> {
  if (depth > 20) return;
  const row = await trx
    .selectFrom('steps')
    .select(['id', 'shared'])
    .where('id', '=', stepId)
    .executeTakeFirst();
  if (!row || fromFlag(row.shared)) return;
  const linked = await trx
    .selectFrom('stepChildren')
    .select('id')
    .where('childStepId', '=', stepId)
    .executeTakeFirst();
  const used = await trx
    .selectFrom('revisionSteps')
    .select('id')
    .where('stepId', '=', stepId)
    .executeTakeFirst();
  if (linked || used) return;
  const children = await trx
    .selectFrom('stepChildren')
    .select('childStepId')
    .where('parentStepId', '=', stepId)
    .execute();
  await trx.deleteFrom('steps').where('id', '=', stepId).execute();
  for (const child of children) await deleteIfOrphan(trx, child.childStepId, depth + 1);
}
