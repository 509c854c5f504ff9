import { z } from 'zod';
import { pagination, testStatus } from './common.ts';

/**
 * Fields of `GET /v1/tests` the action's client reads to expand directories and tags
 * beyond the 100-tests-per-run cap (loose: the full test item has more fields).
 */
export const testListItemBrief = z
  .object({ id: z.string(), directory: z.boolean(), status: testStatus })
  .loose();
export const testListBriefResponse = z.object({ children: z.array(testListItemBrief), pagination });
