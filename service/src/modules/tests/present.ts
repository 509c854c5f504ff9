import { appError } from '../../errors.ts';
import { type NormalizedStep, type StepView, yieldToLoop } from '../step-trees/public.ts';
import type { WorkingTest } from './repository.ts';

/** How tests and steps are shown on the wire, and the small parsers shared by the routes. */

export interface Scope {
  organizationId: string;
  projectId: string;
  branchId: string;
}

/** Parses a `testData`-like form field (JSON string, or an object from a JSON body). */
export function parseJsonField(value: unknown, field: string): unknown {
  if (value === undefined || value === null || value === '') throw appError('FIELD_REQUIRED', field);
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    throw appError('FIELD_NOT_JSON', field);
  }
}

export const testTypeOf = (metadata: { type?: 'ui' | 'api' } | undefined, fallback: 'ui' | 'api' = 'ui') =>
  metadata?.type ?? fallback;

/** Test records merged with their working revision, as list items and detail. */
export function presentTest(
  test: WorkingTest,
  tags: Array<{ id: string; name: string }>,
  childrenCount: number,
) {
  return {
    id: test.id,
    parentTestId: test.parentTestId,
    projectId: test.projectId,
    organizationId: test.organizationId,
    name: test.name,
    status: test.status,
    directory: test.directory,
    config: test.config as Record<string, unknown>,
    vars: test.vars,
    parameters: test.parameters,
    metadata: { ...test.metadata, type: test.type, tags: tags.map((tag) => tag.name) },
    tags,
    childrenCount,
    stepsCount: test.stepsCount,
    editVersion: test.editVersion,
    createdAt: test.createdAt,
    updatedAt: test.updatedAt,
  };
}

/** Steps as the API shows them: `id` is the revision-step id. */
export const presentSteps = (views: StepView[]): unknown[] =>
  views.map((view) => ({ ...presentStep(view), children: presentSteps(view.children) }));

const presentStep = (view: StepView) => ({
  id: view.id,
  revisionStepId: view.revisionStepId,
  stepId: view.stepId,
  name: view.name,
  action: view.action,
  condition: view.condition,
  metadata: view.metadata,
  order: view.order,
  group: view.group,
  shared: view.shared,
  children: view.children,
});

/**
 * The JSON of `presentSteps(views)` as pieces of some 500 steps each, built with the event loop
 * let run between them: a tree stored before MAX_STEPS_PER_TEST (tens of thousands of steps,
 * megabytes of JSON) would otherwise hold the loop for its whole serialization, and again for
 * its write to the socket as one string (`sendJson` streams the pieces).
 */
export async function stepsJson(views: StepView[]): Promise<string[]> {
  const pieces: string[] = [];
  let out: string[] = [];
  let sinceYield = 0;
  const write = async (list: StepView[]) => {
    out.push('[');
    for (const [index, view] of list.entries()) {
      if (++sinceYield >= 500) {
        sinceYield = 0;
        pieces.push(out.join(''));
        out = [];
        await yieldToLoop();
      }
      const { children: _children, ...fields } = presentStep(view);
      out.push(index > 0 ? ',' : '', JSON.stringify(fields).slice(0, -1), ',"children":');
      await write(view.children);
      out.push('}');
    }
    out.push(']');
  };
  await write(views);
  pieces.push(out.join(''));
  return pieces;
}

/** A JSON body: `payload` with members whose values are JSON pieces already (`stepsJson`). */
export function jsonWith(payload: Record<string, unknown>, members: Record<string, string[]>): string[] {
  const head = JSON.stringify(payload);
  const out: string[] = [head === '{}' ? '{' : `${head.slice(0, -1)},`];
  for (const [index, [key, pieces]] of Object.entries(members).entries())
    out.push(`${index > 0 ? ',' : ''}${JSON.stringify(key)}:`, ...pieces);
  out.push('}');
  return out;
}

/** The pieces of one JSON array's only item (`[item]` → `item`). */
export function onlyItem(pieces: string[]): string[] {
  const out = [...pieces];
  out[0] = (out[0] ?? '[').slice(1);
  out[out.length - 1] = (out[out.length - 1] ?? ']').slice(0, -1);
  return out;
}

/** A stored tree as writer input: own steps copied, shared steps kept by reference. */
export function viewsToNormalized(views: StepView[]): NormalizedStep[] {
  return views.map((view) =>
    view.shared
      ? {
          sharedRef: view.stepId,
          name: view.name,
          action: view.action as NormalizedStep['action'],
          condition: null,
          metadata: null,
          shared: true,
          group: view.group,
          children: [],
        }
      : {
          name: view.name,
          action: view.action as NormalizedStep['action'],
          condition: view.condition,
          metadata: view.metadata,
          shared: false,
          group: view.group,
          children: viewsToNormalized(view.children),
        },
  );
}
