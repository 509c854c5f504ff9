import type { StepCondition, StepInput, StepTreeItem } from '@stepdeck/contract';

/** A step in the editor: the wire step plus a local key that survives moves and edits. */
export interface EditorStep {
  key: string;
  /** Canonical step id, kept for shared steps (sent back as their reference). */
  stepId?: string | undefined;
  /** The id the service showed it under (a revision step, or a shared group's link): replace-children matches on it. */
  revisionStepId?: string | undefined;
  name: string;
  action: Record<string, unknown>;
  condition: StepCondition | null;
  shared: boolean;
  children: EditorStep[];
}

let counter = 0;
export const newKey = () => `s${++counter}`;

export function fromWire(steps: readonly StepTreeItem[]): EditorStep[] {
  return steps.map((step) => ({
    key: newKey(),
    stepId: step.stepId,
    revisionStepId: step.id,
    name: step.name ?? '',
    action: step.action,
    condition: (step.condition as StepCondition | null | undefined) ?? null,
    shared: step.shared === true,
    children: fromWire(step.children ?? []),
  }));
}

/**
 * What a save sends: own steps whole; an existing shared step by reference only (its content
 * is edited on the shared step itself); a group newly marked shared whole, so it becomes one.
 */
export function toWire(steps: readonly EditorStep[]): StepInput[] {
  return steps.map((step) =>
    step.shared && step.stepId
      ? { stepId: step.stepId, shared: true, name: step.name }
      : {
          name: step.name,
          action: step.action,
          ...(step.condition ? { condition: step.condition } : {}),
          ...(step.shared ? { shared: true } : {}),
          ...(isGroup(step) ? { group: true, children: toWire(step.children) } : {}),
        },
  );
}

export const isGroup = (step: EditorStep) => step.action.name === 'group';

/**
 * What `PUT /v1/steps/:stepId/children` takes for a shared group's direct children: as `toWire`,
 * plus the link id of a child the group already has so the service updates it in place. A group
 * child goes without it: the service updates a known child's own fields only, so a group is sent
 * whole (its children included) as a new child.
 */
export function toChildrenWire(steps: readonly EditorStep[]): Array<StepInput & { revisionStepId?: string }> {
  return toWire(steps).map((wire, index) => {
    const step = steps[index] as EditorStep;
    const ownGroup = isGroup(step) && !(step.shared && step.stepId);
    return step.revisionStepId && !ownGroup ? { ...wire, revisionStepId: step.revisionStepId } : wire;
  });
}

/** The list holding a step, and its index there. */
function locate(
  steps: EditorStep[],
  key: string,
): { list: EditorStep[]; index: number; parent: EditorStep | undefined } | undefined {
  const walk = (list: EditorStep[], parent: EditorStep | undefined): ReturnType<typeof locate> => {
    for (const [index, step] of list.entries()) {
      if (step.key === key) return { list, index, parent };
      const found = walk(step.children, step);
      if (found) return found;
    }
    return undefined;
  };
  return walk(steps, undefined);
}

/** Every change works on a deep copy, so React sees a new tree. */
const clone = (steps: readonly EditorStep[]): EditorStep[] =>
  steps.map((step) => ({ ...step, children: clone(step.children) }));

export function findStep(steps: EditorStep[], key: string): EditorStep | undefined {
  const found = locate(steps, key);
  return found?.list[found.index];
}

/** The step at an index path (as the service's errors name it: `steps[2].children[0]`). */
export function stepAtPath(steps: EditorStep[], path: number[]): EditorStep | undefined {
  let list = steps;
  let step: EditorStep | undefined;
  for (const index of path) {
    step = list[index];
    if (!step) return undefined;
    list = step.children;
  }
  return step;
}

export function updateStep(steps: EditorStep[], key: string, change: Partial<EditorStep>): EditorStep[] {
  const next = clone(steps);
  const found = locate(next, key);
  if (found) found.list[found.index] = { ...(found.list[found.index] as EditorStep), ...change };
  return next;
}

export function removeStep(steps: EditorStep[], key: string): EditorStep[] {
  const next = clone(steps);
  const found = locate(next, key);
  found?.list.splice(found.index, 1);
  return next;
}

/** Adds after `afterKey` (into it, as last child, when it is an own group); at the end when none. */
export function insertStep(steps: EditorStep[], step: EditorStep, afterKey?: string): EditorStep[] {
  const next = clone(steps);
  const found = afterKey ? locate(next, afterKey) : undefined;
  if (!found) {
    next.push(step);
    return next;
  }
  const target = found.list[found.index] as EditorStep;
  if (isGroup(target) && !target.stepId) target.children.push(step);
  else found.list.splice(found.index + 1, 0, step);
  return next;
}

/** One place up or down among its siblings (nothing happens at either end). */
export function moveStep(steps: EditorStep[], key: string, by: -1 | 1): EditorStep[] {
  const next = clone(steps);
  const found = locate(next, key);
  if (!found) return steps;
  const target = found.index + by;
  if (target < 0 || target >= found.list.length) return steps;
  const [step] = found.list.splice(found.index, 1);
  found.list.splice(target, 0, step as EditorStep);
  return next;
}

/** Into the own group just above it, as that group's last step. */
export function indentStep(steps: EditorStep[], key: string): EditorStep[] {
  const next = clone(steps);
  const found = locate(next, key);
  const above = found ? found.list[found.index - 1] : undefined;
  if (!found || !above || !isGroup(above) || above.stepId) return steps;
  const [step] = found.list.splice(found.index, 1);
  above.children.push(step as EditorStep);
  return next;
}

/** Out of its group, just after the group. */
export function outdentStep(steps: EditorStep[], key: string): EditorStep[] {
  const next = clone(steps);
  const found = locate(next, key);
  if (!found?.parent) return steps;
  const outer = locate(next, found.parent.key);
  if (!outer) return steps;
  const [step] = found.list.splice(found.index, 1);
  outer.list.splice(outer.index + 1, 0, step as EditorStep);
  return next;
}

/** A keyboard or toolbar move: up, down, into the group above, out of its group (same tree when it cannot). */
export type StepMove = 'up' | 'down' | 'in' | 'out';
export function applyMove(steps: EditorStep[], key: string, direction: StepMove): EditorStep[] {
  if (direction === 'up') return moveStep(steps, key, -1);
  if (direction === 'down') return moveStep(steps, key, 1);
  return direction === 'in' ? indentStep(steps, key) : outdentStep(steps, key);
}

export const canIndent = (steps: EditorStep[], key: string) => indentStep(steps, key) !== steps;
export const canOutdent = (steps: EditorStep[], key: string) => outdentStep(steps, key) !== steps;

/** `{{vars.…}}`, `{{parameters.…}}` and `{{secrets.…}}` names a text field can complete to. */
export function templateSuggestions(
  vars: Record<string, unknown> | null,
  parameters: Record<string, unknown> | null,
  secrets: readonly string[] = [],
): string[] {
  return [
    ...Object.keys(vars ?? {}).map((name) => `{{vars.${name}}}`),
    ...Object.keys(parameters ?? {}).map((name) => `{{parameters.${name}}}`),
    ...secrets.map((name) => `{{secrets.${name}}}`),
  ];
}

/** Puts a step just before another (drag and drop), unless that one lies inside it. */
export function moveBefore(steps: EditorStep[], key: string, beforeKey: string): EditorStep[] {
  const moving = findStep(steps, key);
  if (!moving || findStep(moving.children, beforeKey)) return steps;
  const without = removeStep(steps, key);
  const found = locate(without, beforeKey);
  if (!found) return steps;
  found.list.splice(found.index, 0, moving);
  return without;
}

/** Index path of a step (to find "the same" step again in a tree reloaded from the server). */
export function pathOfStep(steps: EditorStep[], key: string): number[] | undefined {
  for (const [index, step] of steps.entries()) {
    if (step.key === key) return [index];
    const below = pathOfStep(step.children, key);
    if (below) return [index, ...below];
  }
  return undefined;
}

/**
 * How deep the tree goes, counted as the service counts (`maxStepDepth`): a top-level step is
 * at level 1 and each group adds one for its steps.
 */
export function treeDepth(steps: readonly EditorStep[], level = 1): number {
  let deepest = steps.length > 0 ? level : level - 1;
  for (const step of steps) deepest = Math.max(deepest, treeDepth(step.children, level + 1));
  return deepest;
}

/**
 * How many steps the tree holds, counted as the service counts (`MAX_STEPS_PER_TEST`): every
 * step, groups included, a shared group with the children it shows.
 */
export function countSteps(steps: readonly EditorStep[]): number {
  let count = 0;
  for (const step of steps) count += 1 + countSteps(step.children);
  return count;
}

/** The level of the step with `key` (1 at the top), or undefined when it is not in the tree. */
export function levelOf(steps: readonly EditorStep[], key: string, level = 1): number | undefined {
  for (const step of steps) {
    if (step.key === key) return level;
    const inside = levelOf(step.children, key, level + 1);
    if (inside !== undefined) return inside;
  }
  return undefined;
}
