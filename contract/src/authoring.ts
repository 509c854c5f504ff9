import { z } from 'zod';
import { dataOf } from './common.ts';
import { consoleBranch } from './console.ts';

/**
 * Shapes of the `/console/v1` routes the console's authoring pages (tests tree, editor) read:
 * the organization's tags and a created branch. The service's handlers return these.
 */

/** Item of `GET /console/v1/tags` (also the `201` of `POST /console/v1/tags`). */
export const consoleTag = z.object({ id: z.string(), name: z.string() });
export type ConsoleTag = z.infer<typeof consoleTag>;
export const consoleTagsResponse = dataOf(z.array(consoleTag));
export const consoleTagResponse = dataOf(consoleTag);

/** `201` of `POST /console/v1/projects/:projectId/branches`. */
export const consoleCreatedBranchResponse = dataOf(consoleBranch.partial({ isDefault: true }).loose());

/** Body of `POST /console/v1/projects/:projectId/branches`. */
export const createBranchBody = z.object({ name: z.string().min(1), sourceBranchId: z.string().optional() });
export type CreateBranchBody = z.infer<typeof createBranchBody>;

/**
 * A step of a test's step tree as `GET /v1/tests/:testId` and `/steps` show it (the spec's
 * "Step"): `id` is the revision-step id, `stepId` the canonical one (what a shared step is
 * referenced by). The editor reads this and sends back `StepInput`s.
 */
export interface StepTreeItem {
  id: string;
  revisionStepId?: string | undefined;
  stepId?: string | undefined;
  name?: string | null | undefined;
  action: Record<string, unknown> & { name: string };
  condition?: unknown;
  metadata?: unknown;
  order?: number | undefined;
  group?: boolean | undefined;
  shared?: boolean | undefined;
  children?: StepTreeItem[] | undefined;
}
export const stepTreeItem: z.ZodType<StepTreeItem> = z.lazy(() =>
  z.looseObject({
    id: z.string(),
    revisionStepId: z.string().optional(),
    stepId: z.string().optional(),
    name: z.string().nullable().optional(),
    action: z.looseObject({ name: z.string() }),
    condition: z.unknown().optional(),
    metadata: z.unknown().optional(),
    order: z.number().optional(),
    group: z.boolean().optional(),
    shared: z.boolean().optional(),
    children: z.array(stepTreeItem).optional(),
  }),
);
export const stepTree = z.array(stepTreeItem);
