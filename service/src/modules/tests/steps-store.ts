import { randomUUID } from 'node:crypto';
import {
  describeActionError,
  jsonObject,
  type StepAction,
  type StepCondition,
  type StepInput,
  type StepNode,
  stepAction,
  stepCondition,
} from '@stepdeck/contract';
import type { Db, Tx } from '../../adapters/db/index.ts';
import { fromFlag, readJson, toFlag, toJson } from '../../adapters/db/index.ts';
import { onPostgres } from '../../adapters/db/locks.ts';
import { badRequest, notFound } from '../../errors.ts';

type Executor = Db | Tx;

/** A step in a revision tree as the API returns it. */
export interface StepView {
  id: string;
  revisionStepId: string;
  stepId: string;
  name: string;
  action: Record<string, unknown>;
  condition: StepCondition | null;
  metadata: Record<string, unknown> | null;
  order: number;
  group: boolean;
  shared: boolean;
  children: StepView[];
}

export type StepRow = {
  id: string;
  projectId: string;
  name: string;
  action: string;
  metadata: string | null;
  condition: string | null;
  shared: number;
  isGroup: number;
  type: 'ui' | 'api';
};

/** Screenshot data never leaves in list and detail responses. */
export function stripScreenshotData(action: Record<string, unknown>): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(action)) {
    if (/^screenshot(Data|Base64|Url|Image)?$/i.test(key) && key !== 'name') continue;
    copy[key] = value;
  }
  return copy;
}

const chunk = <T>(items: T[], size: number): T[][] => {
  const out: T[][] = [];
  for (let index = 0; index < items.length; index += size) out.push(items.slice(index, index + size));
  return out;
};

export { chunk };

/** A validated step, ready to be written. */
export interface NormalizedStep {
  /** Existing shared step referenced as is. */
  sharedRef?: string;
  name: string;
  action: StepAction;
  condition: StepCondition | null;
  metadata: Record<string, unknown> | null;
  shared: boolean;
  group: boolean;
  children: NormalizedStep[];
}

/** Validates an editor step tree; every failure names the step and the field. */
export function normalizeSteps(
  input: unknown[],
  path = 'steps',
  sharedIds: ReadonlySet<string> = new Set(),
): NormalizedStep[] {
  return input.map((raw, index) => {
    const label = `${path}[${index}]`;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
      throw badRequest(`${label}: must be an object`);
    const item = raw as StepInput;
    const ref = item.stepId ?? item.id;
    if (item.shared && ref && sharedIds.has(ref)) {
      return {
        sharedRef: ref,
        name: '',
        action: { name: 'group' } as StepAction,
        condition: null,
        metadata: null,
        shared: true,
        group: false,
        children: [],
      };
    }
    const stepLabel = `step ${item.name ? `"${item.name}" ` : ''}(${label})`;
    if (item.action === undefined || item.action === null)
      throw badRequest(`${stepLabel}: action: action is required`);
    const parsed = stepAction.safeParse(item.action);
    if (!parsed.success) throw badRequest(describeActionError(stepLabel, parsed.error));
    let condition: StepCondition | null = null;
    if (item.condition !== undefined && item.condition !== null) {
      const parsedCondition = stepCondition.safeParse(item.condition);
      if (!parsedCondition.success)
        throw badRequest(
          `${stepLabel}: condition: must be {type:"skip"}, {type:"alwaysRun"} or {type:"if", variable, equals}`,
        );
      condition = parsedCondition.data;
    }
    if (item.name !== undefined && typeof item.name !== 'string')
      throw badRequest(`${stepLabel}: name: must be a string`);
    if (item.children !== undefined && !Array.isArray(item.children))
      throw badRequest(`${stepLabel}: children: must be an array`);
    const group = parsed.data.name === 'group' || item.group === true;
    if (!group && item.children && item.children.length > 0)
      throw badRequest(`${stepLabel}: children: only a group step has children`);
    const metadata =
      item.metadata && typeof item.metadata === 'object' && !Array.isArray(item.metadata)
        ? (item.metadata as Record<string, unknown>)
        : null;
    return {
      name: item.name?.trim() || parsed.data.description || parsed.data.name,
      action: parsed.data,
      condition,
      metadata,
      shared: item.shared === true,
      group,
      children: normalizeSteps(item.children ?? [], `${label}.children`, sharedIds),
    };
  });
}

/** Collects ids of shared steps the tree may reference, so normalizeSteps can resolve them. */
export function referencedIds(input: unknown[]): string[] {
  const out: string[] = [];
  const walk = (items: unknown[]) => {
    for (const raw of items) {
      if (typeof raw !== 'object' || raw === null) continue;
      const item = raw as StepInput;
      const ref = item.stepId ?? item.id;
      if (item.shared && typeof ref === 'string') out.push(ref);
      if (Array.isArray(item.children)) walk(item.children);
    }
  };
  walk(input);
  return out;
}

/**
 * The project's shared steps among `ids`. With `lock`, a write is about to reference them: on
 * PostgreSQL they are locked (`share`, or `update` for an edit of the group itself) in one
 * statement in id order, so a concurrent delete of the shared step waits or is seen.
 */
export async function existingSharedIds(
  db: Executor,
  projectId: string,
  ids: string[],
  lock?: 'share' | 'update',
): Promise<Set<string>> {
  const found = new Set<string>();
  const unique = [...new Set(ids)];
  const locking = lock !== undefined && onPostgres(db);
  for (const part of locking ? [unique] : chunk(unique, 500)) {
    if (part.length === 0) continue;
    let query = db
      .selectFrom('steps')
      .select('id')
      .where('projectId', '=', projectId)
      .where('shared', '=', 1)
      .where('id', 'in', part);
    if (locking) {
      query = query.orderBy('id');
      query = lock === 'update' ? query.forUpdate() : query.forShare();
    }
    for (const row of await query.execute()) found.add(row.id);
  }
  return found;
}

/** Validates a raw step array against the project's shared steps (locked on PostgreSQL when `lock`). */
export async function parseSteps(
  db: Executor,
  projectId: string,
  input: unknown[],
  path = 'steps',
  lock?: 'share',
) {
  const shared = await existingSharedIds(db, projectId, referencedIds(input), lock);
  return normalizeSteps(input, path, shared);
}

type StepInsert = {
  id: string;
  projectId: string;
  name: string;
  nameLower: string;
  action: string;
  metadata: string | null;
  condition: string | null;
  shared: number;
  isGroup: number;
  type: 'ui' | 'api';
  createdAt: string;
  updatedAt: string;
};

/** Rows to insert for a step tree: canonical steps, shared-group children and revision nodes. */
export class StepWriter {
  readonly steps: StepInsert[] = [];
  readonly stepChildren: Array<{ id: string; parentStepId: string; childStepId: string; position: number }> =
    [];
  readonly revisionSteps: Array<{
    id: string;
    revisionId: string;
    stepId: string;
    parentId: string | null;
    position: number;
  }> = [];
  private readonly projectId: string;
  private readonly type: 'ui' | 'api';
  private readonly now: string;

  constructor(projectId: string, type: 'ui' | 'api', now: string) {
    this.projectId = projectId;
    this.type = type;
    this.now = now;
  }

  canonical(step: NormalizedStep, shared: boolean): string {
    const id = randomUUID();
    this.steps.push({
      id,
      projectId: this.projectId,
      name: step.name,
      nameLower: step.name.toLowerCase(),
      action: toJson(step.action),
      metadata: step.metadata ? toJson(step.metadata) : null,
      condition: step.condition ? toJson(step.condition) : null,
      shared: toFlag(shared),
      isGroup: toFlag(step.group),
      type: this.type,
      createdAt: this.now,
      updatedAt: this.now,
    });
    return id;
  }

  /** A shared group keeps its children canonically, so every test sees the same ones. */
  sharedGroupChildren(parentStepId: string, children: NormalizedStep[]) {
    children.forEach((child, position) => {
      const childId = child.sharedRef ?? this.canonical(child, false);
      if (!child.sharedRef && child.group) this.sharedGroupChildren(childId, child.children);
      this.stepChildren.push({ id: randomUUID(), parentStepId, childStepId: childId, position });
    });
  }

  /** Writes a revision's tree; returns the number of steps (all levels). */
  tree(revisionId: string, steps: NormalizedStep[], parentId: string | null = null): number {
    let count = 0;
    steps.forEach((step, position) => {
      let stepId: string;
      if (step.sharedRef) stepId = step.sharedRef;
      else if (step.shared) {
        stepId = this.canonical(step, true);
        if (step.group) this.sharedGroupChildren(stepId, step.children);
      } else stepId = this.canonical(step, false);
      const nodeId = randomUUID();
      this.revisionSteps.push({ id: nodeId, revisionId, stepId, parentId, position });
      count += 1;
      if (!step.sharedRef && !step.shared && step.group)
        count += this.tree(revisionId, step.children, nodeId);
    });
    return count;
  }

  async flush(trx: Executor) {
    for (const part of chunk(this.steps, 200)) await trx.insertInto('steps').values(part).execute();
    for (const part of chunk(this.stepChildren, 300))
      await trx.insertInto('stepChildren').values(part).execute();
    for (const part of chunk(this.revisionSteps, 300))
      await trx.insertInto('revisionSteps').values(part).execute();
    this.steps.length = 0;
    this.stepChildren.length = 0;
    this.revisionSteps.length = 0;
  }
}

const rowToParts = (row: StepRow) => ({
  name: row.name,
  action: readJson(jsonObject, row.action, {}, `steps ${row.id}/action`),
  condition: readJson(stepCondition.nullable(), row.condition, null, `steps ${row.id}/condition`),
  metadata: readJson(jsonObject.nullable(), row.metadata, null, `steps ${row.id}/metadata`),
  group: fromFlag(row.isGroup),
  shared: fromFlag(row.shared),
});

async function loadStepRows(db: Executor, ids: string[]): Promise<Map<string, StepRow>> {
  const map = new Map<string, StepRow>();
  for (const part of chunk([...new Set(ids)], 500)) {
    if (part.length === 0) continue;
    const rows = await db
      .selectFrom('steps')
      .select(['id', 'projectId', 'name', 'action', 'metadata', 'condition', 'shared', 'isGroup', 'type'])
      .where('id', 'in', part)
      .execute();
    for (const row of rows) map.set(row.id, row);
  }
  return map;
}

/** Children of shared groups, recursively, as canonical ids with their link ids. */
async function loadSharedChildren(db: Executor, parentIds: string[]) {
  const links = new Map<string, Array<{ id: string; childStepId: string; position: number }>>();
  let frontier = [...new Set(parentIds)];
  const seen = new Set<string>();
  while (frontier.length > 0) {
    const next: string[] = [];
    for (const part of chunk(frontier, 500)) {
      const rows = await db
        .selectFrom('stepChildren')
        .select(['id', 'parentStepId', 'childStepId', 'position'])
        .where('parentStepId', 'in', part)
        .orderBy('position')
        .execute();
      for (const row of rows) {
        const list = links.get(row.parentStepId) ?? [];
        list.push(row);
        links.set(row.parentStepId, list);
        if (!seen.has(row.childStepId)) {
          seen.add(row.childStepId);
          next.push(row.childStepId);
        }
      }
    }
    for (const id of frontier) seen.add(id);
    frontier = next.filter((id) => !links.has(id));
  }
  return links;
}

/** Full step trees of several revisions (shared groups expanded), keyed by revision id. */
export async function loadStepTrees(db: Executor, revisionIds: string[]): Promise<Map<string, StepView[]>> {
  const nodes: Array<{
    id: string;
    revisionId: string;
    stepId: string;
    parentId: string | null;
    position: number;
  }> = [];
  for (const part of chunk([...new Set(revisionIds)], 500)) {
    if (part.length === 0) continue;
    nodes.push(
      ...(await db
        .selectFrom('revisionSteps')
        .select(['id', 'revisionId', 'stepId', 'parentId', 'position'])
        .where('revisionId', 'in', part)
        .execute()),
    );
  }
  const rows = await loadStepRows(
    db,
    nodes.map((node) => node.stepId),
  );
  const sharedGroupIds = [...rows.values()].filter((row) => row.shared && row.isGroup).map((row) => row.id);
  const links = await loadSharedChildren(db, sharedGroupIds);
  const linkedRows = await loadStepRows(
    db,
    [...links.values()]
      .flat()
      .map((link) => link.childStepId)
      .filter((id) => !rows.has(id)),
  );
  for (const [id, row] of linkedRows) rows.set(id, row);

  const expandShared = (stepId: string, depth: number): StepView[] =>
    depth > 20
      ? []
      : (links.get(stepId) ?? []).flatMap((link) => {
          const row = rows.get(link.childStepId);
          if (!row) return [];
          const parts = rowToParts(row);
          return [
            {
              id: link.id,
              revisionStepId: link.id,
              stepId: row.id,
              ...parts,
              action: stripScreenshotData(parts.action),
              order: link.position,
              children: parts.group ? expandShared(row.id, depth + 1) : [],
            },
          ];
        });

  const byParent = new Map<string, typeof nodes>();
  for (const node of nodes) {
    const key = `${node.revisionId}:${node.parentId ?? ''}`;
    const list = byParent.get(key) ?? [];
    list.push(node);
    byParent.set(key, list);
  }
  const build = (revisionId: string, parentId: string | null): StepView[] =>
    (byParent.get(`${revisionId}:${parentId ?? ''}`) ?? [])
      .sort((a, b) => a.position - b.position)
      .flatMap((node) => {
        const row = rows.get(node.stepId);
        if (!row) return [];
        const parts = rowToParts(row);
        const children = parts.shared
          ? parts.group
            ? expandShared(row.id, 0)
            : []
          : build(revisionId, node.id);
        return [
          {
            id: node.id,
            revisionStepId: node.id,
            stepId: row.id,
            ...parts,
            action: stripScreenshotData(parts.action),
            order: node.position,
            children,
          },
        ];
      });
  const out = new Map<string, StepView[]>();
  for (const id of revisionIds) out.set(id, build(id, null));
  return out;
}

export async function loadStepTree(db: Executor, revisionId: string): Promise<StepView[]> {
  return (await loadStepTrees(db, [revisionId])).get(revisionId) ?? [];
}

/** Converts a view tree to the compiler's StepNode tree. */
export function toStepNodes(views: StepView[]): StepNode[] {
  return views.map((view) => ({
    id: view.id,
    name: view.name,
    action: view.action as StepAction,
    condition: view.condition,
    ...(view.group ? { children: toStepNodes(view.children) } : {}),
  }));
}

/** Copies the step nodes of one revision onto another (same canonical steps). */
export async function copyRevisionSteps(trx: Executor, pairs: Array<{ from: string; to: string }>) {
  const toOf = new Map(pairs.map((pair) => [pair.from, pair.to]));
  const nodes: Array<{
    id: string;
    revisionId: string;
    stepId: string;
    parentId: string | null;
    position: number;
  }> = [];
  for (const part of chunk([...toOf.keys()], 500)) {
    if (part.length === 0) continue;
    nodes.push(
      ...(await trx
        .selectFrom('revisionSteps')
        .select(['id', 'revisionId', 'stepId', 'parentId', 'position'])
        .where('revisionId', 'in', part)
        .execute()),
    );
  }
  const newIds = new Map(nodes.map((node) => [node.id, randomUUID()]));
  const rows = nodes.map((node) => ({
    id: newIds.get(node.id) as string,
    revisionId: toOf.get(node.revisionId) as string,
    stepId: node.stepId,
    parentId: node.parentId ? (newIds.get(node.parentId) ?? null) : null,
    position: node.position,
  }));
  for (const part of chunk(rows, 300)) await trx.insertInto('revisionSteps').values(part).execute();
}

/** Converts a stored tree back to editor input (for duplicate and export). */
export function viewsToInput(views: StepView[], keepSharedRefs: boolean): StepInput[] {
  return views.map((view) => {
    if (view.shared && keepSharedRefs) return { shared: true, stepId: view.stepId };
    return {
      name: view.name,
      action: view.action,
      ...(view.condition ? { condition: view.condition } : {}),
      ...(view.metadata ? { metadata: view.metadata } : {}),
      ...(view.group ? { children: viewsToInput(view.children, keepSharedRefs) } : {}),
    };
  });
}

export async function requireStep(
  db: Executor,
  projectId: string,
  stepId: string,
  lock?: 'update',
): Promise<StepRow> {
  let query = db
    .selectFrom('steps')
    .select(['id', 'projectId', 'name', 'action', 'metadata', 'condition', 'shared', 'isGroup', 'type'])
    .where('id', '=', stepId)
    .where('projectId', '=', projectId);
  if (lock && onPostgres(db)) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  if (!row) throw notFound('Step not found');
  return row;
}
