import { z } from 'zod';
import { dataOf, isoTimestamp, uuid } from './common.ts';

/**
 * Visual checks: the screenshots of `assertScreenshot` steps that are not their branch's
 * baseline, their review (approve makes the screenshot the baseline, reject keeps it failing)
 * and the baselines of a branch.
 */

/** One visual change as the run report and the webhook body list it. */
export const visualChangeSummary = z.object({
  testId: z.string(),
  testName: z.string(),
  stepId: z.string(),
  /** `new`: no baseline yet (the step passed); `changed`: beyond the threshold (it failed). */
  status: z.enum(['new', 'changed']),
  diffPixels: z.number().int(),
  ratio: z.number(),
  /**
   * Read-only, in the run detail: a presigned URL (no API key, valid 7 days) of the change's
   * diff, else of its screenshot, for thumbnails where no key can be sent (PR comments).
   */
  imageUrl: z.string().optional(),
});
export type VisualChangeSummary = z.infer<typeof visualChangeSummary>;

export const visualDecision = z.enum(['pending', 'approved', 'rejected']);

export const visualChange = z.object({
  id: z.string(),
  runId: z.string(),
  branchId: z.string(),
  testId: z.string(),
  testName: z.string(),
  stepId: z.string(),
  stepName: z.string(),
  browser: z.string(),
  /** `1280x720`. */
  viewport: z.string(),
  status: z.enum(['new', 'changed']),
  diffPixels: z.number().int(),
  ratio: z.number(),
  width: z.number().int(),
  height: z.number().int(),
  decision: visualDecision,
  decidedBy: z.string().nullable(),
  decidedAt: isoTimestamp.nullable(),
  createdAt: isoTimestamp,
  /** API paths of the pictures (PNG); null when there is none (no baseline, no diff, left out by a cap). */
  images: z.object({
    baseline: z.string().nullable(),
    actual: z.string().nullable(),
    diff: z.string().nullable(),
  }),
});
export type VisualChange = z.infer<typeof visualChange>;

export const visualChangeListResponse = z.object({
  data: z.array(visualChange),
  summary: z.object({ new: z.number().int(), changed: z.number().int(), pending: z.number().int() }),
});

/** Approve or reject some of a run's changes (`changeIds`), or every pending one (no body, or no ids). */
export const visualDecisionBody = z
  .object({
    changeIds: z
      .array(uuid, { error: 'changeIds must be a list of visual change ids' })
      .min(1, 'changeIds must name at least one change; leave it out for all of the run')
      .max(500, 'changeIds takes at most 500 ids')
      .optional(),
  })
  .optional();
export type VisualDecisionBody = z.infer<typeof visualDecisionBody>;

export const visualDecisionResponse = dataOf(
  z.object({ decision: z.enum(['approved', 'rejected']), changes: z.array(visualChange) }),
);

export const visualBaseline = z.object({
  id: z.string(),
  branchId: z.string(),
  /** True when the branch has none of its own and uses its project's default branch's. */
  inherited: z.boolean(),
  testId: z.string(),
  stepId: z.string(),
  browser: z.string(),
  viewport: z.string(),
  width: z.number().int(),
  height: z.number().int(),
  bytes: z.number().int(),
  sourceRunId: z.string().nullable(),
  approvedBy: z.string(),
  approvedAt: isoTimestamp,
  image: z.string(),
});
export type VisualBaseline = z.infer<typeof visualBaseline>;

export const visualBaselineListResponse = z.object({ data: z.array(visualBaseline) });
export const visualBaselineQuery = z.object({ testId: uuid.optional() });
