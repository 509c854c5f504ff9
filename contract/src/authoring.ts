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
