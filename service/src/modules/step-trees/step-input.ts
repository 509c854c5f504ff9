import {
  describeActionError,
  maxStepDepth,
  maxStepNameLength,
  type StepAction,
  type StepCondition,
  type StepInput,
  stepAction,
  stepCondition,
} from '@stepdeck/contract';
import type { Db, Tx } from '../../adapters/db/index.ts';
import { appError } from '../../errors.ts';

import { existingSharedIds } from './repository.ts';

/** Step trees as clients send them: validated and normalized before anything is written. */

type Executor = Db | Tx;

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
  depth = 1,
): NormalizedStep[] {
  if (depth > maxStepDepth && input.length > 0)
    throw appError('STEP_TOO_DEEP', path.replace(/\[.*$/, ''), maxStepDepth);
  return input.map((raw, index) => {
    const label = `${path}[${index}]`;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
      throw appError('STEP_NOT_OBJECT', label);
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
    if (item.name !== undefined && typeof item.name !== 'string')
      throw appError('STEP_NAME_NOT_STRING', label);
    if (typeof item.name === 'string' && item.name.trim().length > maxStepNameLength)
      throw appError('STEP_NAME_TOO_LONG', label, maxStepNameLength);
    const stepLabel = `step ${item.name ? `"${item.name}" ` : ''}(${label})`;
    if (item.action === undefined || item.action === null) throw appError('STEP_ACTION_REQUIRED', stepLabel);
    const parsed = stepAction.safeParse(item.action);
    if (!parsed.success) throw appError('STEP_ACTION_INVALID', describeActionError(stepLabel, parsed.error));
    let condition: StepCondition | null = null;
    if (item.condition !== undefined && item.condition !== null) {
      const parsedCondition = stepCondition.safeParse(item.condition);
      if (!parsedCondition.success) throw appError('STEP_CONDITION_INVALID', stepLabel);
      condition = parsedCondition.data;
    }
    if (item.children !== undefined && !Array.isArray(item.children))
      throw appError('STEP_CHILDREN_NOT_ARRAY', stepLabel);
    const group = parsed.data.name === 'group' || item.group === true;
    if (!group && item.children && item.children.length > 0)
      throw appError('STEP_CHILDREN_NOT_GROUP', stepLabel);
    const metadata =
      item.metadata && typeof item.metadata === 'object' && !Array.isArray(item.metadata)
        ? (item.metadata as Record<string, unknown>)
        : null;
    return {
      // A description has no limit of its own: as the name, it is cut to the name's.
      name: item.name?.trim() || (parsed.data.description || parsed.data.name).slice(0, maxStepNameLength),
      action: parsed.data,
      condition,
      metadata,
      shared: item.shared === true,
      group,
      children: normalizeSteps(item.children ?? [], `${label}.children`, sharedIds, depth + 1),
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
