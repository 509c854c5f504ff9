import { z } from 'zod';

/**
 * Shapes the console's authoring pages (tests tree, editor) use: the body of creating a
 * branch, and a test's step tree as the API shows it.
 */

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

/**
 * The 400 body of `DELETE /v1/steps/:stepId` while the step is still used: the tests (on any
 * branch) and shared groups that reference it, so the console can list them.
 */
export const stepStillUsedBody = z.object({
  message: z.string(),
  tests: z
    .array(z.object({ id: z.string(), name: z.string(), branchId: z.string(), branchName: z.string() }))
    .default([]),
  branches: z.array(z.object({ id: z.string(), name: z.string() })).default([]),
  sharedGroups: z.array(z.string()).default([]),
});
