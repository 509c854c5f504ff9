import type { Inputs } from './inputs.ts';
import type { Results, VisualChange } from './results.ts';

export type { VisualChange } from './results.ts';

/** What the action does about visual changes awaiting review (input `visual-changes`). */
export type VisualChangeMode = Inputs['visualChanges'];

/** The console's review page of a run: baseline, actual and diff side by side, approve or reject. */
export const visualReviewUrl = (runUrl: string) => `${runUrl}/visual`;

export const visualChangesOf = (results: Results): VisualChange[] => results.visualChanges ?? [];

/**
 * `2 visual changes await review (1 changed, 1 new): <review page>` (a page per run), or
 * nothing when every screenshot matched its baseline.
 */
export function visualChangesLine(results: Results): string | undefined {
  const changes = visualChangesOf(results);
  if (changes.length === 0) return undefined;
  const changed = changes.filter((change) => change.status === 'changed').length;
  const pages = results.runs
    .filter((run) => changes.some((change) => change.runId === run.runId))
    .map((run) => visualReviewUrl(run.url));
  const one = changes.length === 1;
  return (
    `${changes.length} visual ${one ? 'change awaits' : 'changes await'} review ` +
    `(${changed} changed, ${changes.length - changed} new): ${pages.join(', ')}`
  );
}

/** The step fails on visual changes only with `visual-changes: fail`, while any awaits review. */
export const failsOnVisualChanges = (results: Results, mode: VisualChangeMode) =>
  mode === 'fail' && visualChangesOf(results).length > 0;
