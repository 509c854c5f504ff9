import { randomUUID } from 'node:crypto';
import type { Db, Tx } from '../../adapters/db/index.ts';
import { toFlag, toJson } from '../../adapters/db/index.ts';
import type { NormalizedStep } from './step-input.ts';
import { chunk, type StepRow } from './step-rows.ts';
import {
  insertRevisionNodes,
  insertStepTreeRows,
  type RevisionNodeRow,
  revisionNodesOf,
} from './step-trees-repository.ts';

/** Writes step trees: canonical steps, shared-group links and revision nodes. */

type Executor = Db | Tx;

/** A `steps` row as written: the row read back, plus the columns only writes set. */
type StepInsert = StepRow & { nameLower: string; createdAt: string; updatedAt: string };

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
    await insertStepTreeRows(trx, this);
    this.steps.length = 0;
    this.stepChildren.length = 0;
    this.revisionSteps.length = 0;
  }
}

/** Copies the step nodes of one revision onto another (same canonical steps). */
export async function copyRevisionSteps(trx: Executor, pairs: Array<{ from: string; to: string }>) {
  const toOf = new Map(pairs.map((pair) => [pair.from, pair.to]));
  const nodes: RevisionNodeRow[] = [];
  for (const part of chunk([...toOf.keys()], 500)) {
    if (part.length === 0) continue;
    nodes.push(...(await revisionNodesOf(trx, part)));
  }
  const newIds = new Map(nodes.map((node) => [node.id, randomUUID()]));
  const rows = nodes.map((node) => ({
    id: newIds.get(node.id) as string,
    revisionId: toOf.get(node.revisionId) as string,
    stepId: node.stepId,
    parentId: node.parentId ? (newIds.get(node.parentId) ?? null) : null,
    position: node.position,
  }));
  await insertRevisionNodes(trx, rows);
}
