import type { LiveReplayMessage } from '@stepdeck/contract';
import { type EditorStep, pathOfStep } from './step-tree-edit.ts';

type ReplayStep = LiveReplayMessage['steps'][number];

const wire = (step: EditorStep, children: ReplayStep[]): ReplayStep => ({
  id: step.key,
  name: step.name,
  action: step.action,
  condition: step.condition,
  children,
});
const whole = (step: EditorStep): ReplayStep => wire(step, step.children.map(whole));

/**
 * The steps a run goes through up to and including the one keyed `key`, as a replay sends them
 * (ids are the editor's keys): every step before it, the groups it is in holding only their
 * children up to it, and it whole (a chosen group with all its steps). Undefined when absent.
 */
export function stepsUpTo(steps: readonly EditorStep[], key: string): ReplayStep[] | undefined {
  const path = pathOfStep(steps as EditorStep[], key);
  if (!path) return undefined;
  const upTo = (list: readonly EditorStep[], rest: number[]): ReplayStep[] => {
    const [index = 0, ...deeper] = rest;
    const before = list.slice(0, index).map(whole);
    const at = list[index];
    if (!at) return before;
    return [...before, deeper.length === 0 ? whole(at) : wire(at, upTo(at.children, deeper))];
  };
  return upTo(steps, path);
}

/** The step's number as the step list shows it (`2.1` for the first step of the second). */
export function stepNumber(steps: readonly EditorStep[], key: string): string | undefined {
  return pathOfStep(steps as EditorStep[], key)
    ?.map((index) => index + 1)
    .join('.');
}
