import {
  jsonObject,
  type StepAction,
  type StepInput,
  type StepNode,
  stepCondition,
} from '@stepdeck/contract';
import type { Db, Tx } from '../../adapters/db/index.ts';
import { fromFlag, readJson } from '../../adapters/db/index.ts';
import { chunk, type StepRow, type StepView, stripScreenshotData } from './step-rows.ts';
import {
  type RevisionNodeRow,
  revisionNodesPage,
  sharedLinksOf,
  stepRowsWithIds,
} from './step-trees-repository.ts';

/** Reads step trees back: a revision's nodes resolved to their canonical steps. */

type Executor = Db | Tx;

const rowToParts = (row: StepRow) => ({
  name: row.name,
  action: readJson(jsonObject, row.action, {}, `steps ${row.id}/action`),
  condition: readJson(stepCondition.nullable(), row.condition, null, `steps ${row.id}/condition`),
  metadata: readJson(jsonObject.nullable(), row.metadata, null, `steps ${row.id}/metadata`),
  group: fromFlag(row.isGroup),
  shared: fromFlag(row.shared),
});

type StepParts = ReturnType<typeof rowToParts> & { id: string };

/**
 * Lets the event loop run between the chunks of a large tree: on SQLite every query runs
 * synchronously, so a tree of some 10000 steps (stored before MAX_STEPS_PER_TEST) would otherwise
 * hold it for the whole read.
 */
export const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Canonical steps by id, parsed a chunk at a time (the parsing is most of a large read). */
async function loadStepRows(db: Executor, ids: string[]): Promise<Map<string, StepParts>> {
  const map = new Map<string, StepParts>();
  const parts = chunk([...new Set(ids)], 500);
  for (const [index, part] of parts.entries()) {
    if (part.length === 0) continue;
    if (index > 0) await yieldToLoop();
    const rows = await stepRowsWithIds(db, part);
    for (const row of rows) {
      const parts = rowToParts(row);
      map.set(row.id, { id: row.id, ...parts, action: stripScreenshotData(parts.action) });
    }
  }
  return map;
}

/** Nodes are read in pages of this many: a tree stored before the limits can hold 100000. */
const nodesPage = 5000;

/** Children of shared groups, recursively, as canonical ids with their link ids. */
async function loadSharedChildren(db: Executor, parentIds: string[]) {
  const links = new Map<string, Array<{ id: string; childStepId: string; position: number }>>();
  let frontier = [...new Set(parentIds)];
  const seen = new Set<string>();
  while (frontier.length > 0) {
    const next: string[] = [];
    for (const part of chunk(frontier, 500)) {
      const rows = await sharedLinksOf(db, part);
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
  const nodes: RevisionNodeRow[] = [];
  for (const part of chunk([...new Set(revisionIds)], 500)) {
    if (part.length === 0) continue;
    for (let after: string | undefined; ; ) {
      const page = await revisionNodesPage(db, part, after, nodesPage);
      for (const node of page) nodes.push(node);
      if (page.length < nodesPage) break;
      after = page[page.length - 1]?.id;
      await yieldToLoop();
    }
  }
  const rows = await loadStepRows(
    db,
    nodes.map((node) => node.stepId),
  );
  const sharedGroupIds = [...rows.values()].filter((row) => row.shared && row.group).map((row) => row.id);
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
          const found = rows.get(link.childStepId);
          if (!found) return [];
          const { id: stepId, ...parts } = found;
          return [
            {
              id: link.id,
              revisionStepId: link.id,
              stepId,
              ...parts,
              order: link.position,
              children: parts.group ? expandShared(stepId, depth + 1) : [],
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
  // Built a slice at a time, like the rows were read: a tree stored before MAX_STEPS_PER_TEST
  // (tens of thousands of nodes) takes hundreds of milliseconds of CPU to assemble.
  let sinceYield = 0;
  const build = async (revisionId: string, parentId: string | null): Promise<StepView[]> => {
    const list = (byParent.get(`${revisionId}:${parentId ?? ''}`) ?? []).sort(
      (a, b) => a.position - b.position,
    );
    const views: StepView[] = [];
    for (const node of list) {
      if (++sinceYield >= 1000) {
        sinceYield = 0;
        await yieldToLoop();
      }
      const found = rows.get(node.stepId);
      if (!found) continue;
      const { id: stepId, ...parts } = found;
      const children = parts.shared
        ? parts.group
          ? expandShared(stepId, 0)
          : []
        : await build(revisionId, node.id);
      views.push({
        id: node.id,
        revisionStepId: node.id,
        stepId,
        ...parts,
        order: node.position,
        children,
      });
    }
    return views;
  };
  const out = new Map<string, StepView[]>();
  for (const id of revisionIds) out.set(id, await build(id, null));
  return out;
}

export async function loadStepTree(db: Executor, revisionId: string): Promise<StepView[]> {
  return (await loadStepTrees(db, [revisionId])).get(revisionId) ?? [];
}

/** Converts a view tree to the compiler's StepNode tree. */
export function toStepNodes(views: StepView[]): StepNode[] {
  return views.map((view) => ({
    id: view.id,
    stepId: view.stepId,
    name: view.name,
    action: view.action as StepAction,
    condition: view.condition,
    ...(view.group ? { children: toStepNodes(view.children) } : {}),
  }));
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
