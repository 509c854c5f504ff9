import { badRequest } from '../../errors.ts';
import type { NormalizedStep, StepView } from '../steps/public.ts';
import type { WorkingTest } from './repository.ts';

/** How tests and steps are shown on the wire, and the small parsers shared by the routes. */

export interface Scope {
  organizationId: string;
  projectId: string;
  branchId: string;
}

/** Parses a `testData`-like form field (JSON string, or an object from a JSON body). */
export function parseJsonField(value: unknown, field: string): unknown {
  if (value === undefined || value === null || value === '') throw badRequest(`${field} is required`);
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    throw badRequest(`${field} must be a JSON string`);
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
  views.map((view) => ({
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
    children: presentSteps(view.children),
  }));

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
