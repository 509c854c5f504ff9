import { Buffer } from 'node:buffer';
import { defaultMaxStepsPerTest, defaultMaxStepTreeBytes } from '@stepdeck/contract';
import type { Db, Tx } from '../../adapters/db/index.ts';
import { fromFlag, toJson } from '../../adapters/db/index.ts';
import type { Config } from '../../config.ts';
import { appError } from '../../errors.ts';
import type { NormalizedStep } from './step-input.ts';
import { chunk } from './step-rows.ts';
import { revisionNodeTotals, sharedLinksOf, stepSizeRows } from './step-trees-repository.ts';

/**
 * Quotas on one test's step tree (`MAX_STEPS_PER_TEST`, `MAX_STEP_TREE_BYTES`). A tree is
 * measured as `loadStepTrees` shows it: every node, groups included, with shared groups expanded
 * into their canonical children (21 levels, as there); its bytes are the UTF-8 size of each
 * node's stored name and action, condition and metadata JSON. Every write that adds steps
 * measures the tree it would leave and refuses it (400, nothing written) past a limit; a test
 * already past one (stored before the limits) still reads and runs, and may be written as long
 * as the write does not make it larger in what it exceeds.
 */

type Executor = Db | Tx;

export interface StepLimits {
  maxSteps: number;
  maxBytes: number;
}
export interface TreeSize {
  steps: number;
  bytes: number;
}

export const defaultStepLimits: StepLimits = {
  maxSteps: defaultMaxStepsPerTest,
  maxBytes: defaultMaxStepTreeBytes,
};

/** The install's limits (config.ts: `MAX_STEPS_PER_TEST`, `MAX_STEP_TREE_BYTES`). */
export const stepLimitsOf = (config: Pick<Config, 'maxStepsPerTest' | 'maxStepTreeBytes'>): StepLimits => ({
  maxSteps: config.maxStepsPerTest ?? defaultMaxStepsPerTest,
  maxBytes: config.maxStepTreeBytes ?? defaultMaxStepTreeBytes,
});

const none: TreeSize = { steps: 0, bytes: 0 };
const add = (a: TreeSize, b: TreeSize): TreeSize => ({ steps: a.steps + b.steps, bytes: a.bytes + b.bytes });
/** Shared groups expand this many levels below the node using them (`expandShared` in step-trees.ts). */
const sharedExpansionDepth = 20;

/** Bytes a step takes as `StepWriter` stores it (the SQL of `stepSizeRows` counts the same). */
export function stepBytes(step: Pick<NormalizedStep, 'name' | 'action' | 'condition' | 'metadata'>): number {
  return (
    Buffer.byteLength(step.name) +
    Buffer.byteLength(toJson(step.action)) +
    (step.condition ? Buffer.byteLength(toJson(step.condition)) : 0) +
    (step.metadata ? Buffer.byteLength(toJson(step.metadata)) : 0)
  );
}

/**
 * What the canonical children of these groups add below a node using each of them, recursively
 * (shared groups inside included), to the depth `loadStepTrees` shows. Memoized per group and
 * level: shared groups linking one another many times are counted without being unrolled.
 */
async function expansions(db: Executor, groupIds: string[]): Promise<(groupId: string) => TreeSize> {
  const rows = new Map<string, { group: boolean; bytes: number }>();
  const links = new Map<string, string[]>();
  const explored = new Set<string>();
  let frontier = [...new Set(groupIds)];
  while (frontier.length > 0) {
    for (const id of frontier) explored.add(id);
    const children = new Set<string>();
    for (const part of chunk(frontier, 500)) {
      for (const link of await sharedLinksOf(db, part)) {
        const list = links.get(link.parentStepId) ?? [];
        list.push(link.childStepId);
        links.set(link.parentStepId, list);
        children.add(link.childStepId);
      }
    }
    const unknown = [...children].filter((id) => !rows.has(id));
    for (const part of chunk(unknown, 500))
      for (const row of await stepSizeRows(db, part))
        rows.set(row.id, { group: fromFlag(row.isGroup), bytes: Number(row.bytes) });
    frontier = [...children].filter((id) => rows.get(id)?.group && !explored.has(id));
  }
  const memo = new Map<string, TreeSize>();
  const expand = (id: string, depth: number): TreeSize => {
    if (depth > sharedExpansionDepth) return none;
    const key = `${depth}:${id}`;
    const known = memo.get(key);
    if (known) return known;
    let size = none;
    for (const childId of links.get(id) ?? []) {
      const row = rows.get(childId);
      if (!row) continue;
      size = add(size, { steps: 1, bytes: row.bytes });
      if (row.group) size = add(size, expand(childId, depth + 1));
    }
    memo.set(key, size);
    return size;
  };
  return (groupId) => expand(groupId, 0);
}

/** The size a node referencing each of these existing steps brings into a tree (itself included). */
async function referencedSizes(db: Executor, stepIds: string[]): Promise<Map<string, TreeSize>> {
  const rows = new Map<string, { group: boolean; shared: boolean; bytes: number }>();
  for (const part of chunk([...new Set(stepIds)], 500))
    for (const row of await stepSizeRows(db, part))
      rows.set(row.id, {
        group: fromFlag(row.isGroup),
        shared: fromFlag(row.shared),
        bytes: Number(row.bytes),
      });
  const groups = [...rows].filter(([, row]) => row.group && row.shared).map(([id]) => id);
  const expand = await expansions(db, groups);
  const out = new Map<string, TreeSize>();
  for (const [id, row] of rows)
    out.set(id, add({ steps: 1, bytes: row.bytes }, row.group && row.shared ? expand(id) : none));
  return out;
}

/** The size of a tree about to be written; `shared` sizes the existing shared steps it references. */
export function sizeOfSteps(steps: NormalizedStep[], shared: ReadonlyMap<string, TreeSize>): TreeSize {
  let size = none;
  for (const step of steps) {
    if (step.sharedRef) size = add(size, shared.get(step.sharedRef) ?? { steps: 1, bytes: 0 });
    else size = add(add(size, { steps: 1, bytes: stepBytes(step) }), sizeOfSteps(step.children, shared));
  }
  return size;
}

const sharedRefsOf = (steps: NormalizedStep[], out: string[] = []): string[] => {
  for (const step of steps) {
    if (step.sharedRef) out.push(step.sharedRef);
    sharedRefsOf(step.children, out);
  }
  return out;
};

/** The size of a tree about to be written, its references to existing shared steps resolved. */
export async function measureSteps(db: Executor, steps: NormalizedStep[]): Promise<TreeSize> {
  return sizeOfSteps(steps, await referencedSizes(db, sharedRefsOf(steps)));
}

/** The sizes of stored revision trees, by revision id (0 for a revision without steps). */
export async function revisionSizes(db: Executor, revisionIds: string[]): Promise<Map<string, TreeSize>> {
  const out = new Map<string, TreeSize>();
  const sharedNodes: Array<{ revisionId: string; stepId: string }> = [];
  for (const part of chunk([...new Set(revisionIds)], 500)) {
    const { totals, sharedGroups } = await revisionNodeTotals(db, part);
    for (const row of totals)
      out.set(row.revisionId, { steps: Number(row.steps), bytes: Number(row.bytes ?? 0) });
    sharedNodes.push(...sharedGroups);
  }
  const expand = await expansions(
    db,
    sharedNodes.map((node) => node.stepId),
  );
  for (const node of sharedNodes)
    out.set(node.revisionId, add(out.get(node.revisionId) ?? none, expand(node.stepId)));
  for (const id of revisionIds) if (!out.has(id)) out.set(id, none);
  return out;
}

/**
 * Refuses (400) a tree past a limit, naming the limit and its setting. With `before` (the tree
 * as stored), a tree already past a limit may stay past it as long as it does not grow there.
 */
export function refuseOverLimits(
  limits: StepLimits,
  size: TreeSize,
  options: { before?: TreeSize | undefined; who?: string } = {},
): void {
  const who = options.who ?? 'this one';
  const before = options.before;
  if (size.steps > limits.maxSteps && (!before || size.steps > before.steps))
    throw appError('TOO_MANY_STEPS', limits.maxSteps, who, size.steps);
  if (size.bytes > limits.maxBytes && (!before || size.bytes > before.bytes))
    throw appError('STEPS_TOO_LARGE', limits.maxBytes, who, size.bytes);
}

export const overLimits = (limits: StepLimits, size: TreeSize): boolean =>
  size.steps > limits.maxSteps || size.bytes > limits.maxBytes;

/**
 * Refuses a tree about to replace a test's tree (or to be a new test's) past a limit. `stored`
 * is the revision it replaces, measured only when the new tree is past a limit.
 */
export async function requireStepsWithinLimits(
  db: Executor,
  limits: StepLimits,
  steps: NormalizedStep[],
  stored?: string,
): Promise<TreeSize> {
  const size = await measureSteps(db, steps);
  if (overLimits(limits, size)) {
    const before = stored ? (await revisionSizes(db, [stored])).get(stored) : undefined;
    refuseOverLimits(limits, size, { before });
  }
  return size;
}
