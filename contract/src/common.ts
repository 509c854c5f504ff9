import { z } from 'zod';

/**
 * Every error: the spec's `message`, and a stable `code` (e.g. `TEST_NOT_FOUND`) for programs
 * to branch on; messages may be reworded, codes are never renamed. Some errors add fields.
 */
export const errorBody = z.object({
  message: z.string(),
  code: z.string().describe('Stable error code, e.g. `TEST_NOT_FOUND`: branch on this, not on `message`.'),
});
export type ErrorBody = z.infer<typeof errorBody>;

/** The rate limiter's 429 (the spec's body), with its code. */
export const rateLimitBody = z.object({
  error: z.literal('Too many requests'),
  code: z.literal('RATE_LIMITED'),
});

export const pagination = z.object({
  page: z.number().int(),
  limit: z.number().int(),
  total: z.number().int(),
  totalPages: z.number().int(),
  hasMore: z.boolean(),
});
export type Pagination = z.infer<typeof pagination>;

/** A JSON object of the user's own (configuration, variables, custom data): an open map. */
export const jsonObject = z.record(z.string(), z.unknown());

/** `{ data: T }`, the wrapper of almost every response. */
export const dataOf = <T extends z.ZodType>(payload: T) => z.object({ data: payload });

export const uuid = z.uuid({ error: 'must be a UUID' });

/**
 * A whole-number query parameter (`limit`, `page`) whose every failure states the rule, e.g.
 * "limit must be a whole number from 1 to 500" for `limit=0`, `limit=abc` or `limit=1.5`.
 */
export const queryInteger = (name: string, min: number, max?: number) => {
  const message = `${name} must be a whole number ${max === undefined ? `${min} or more` : `from ${min} to ${max}`}`;
  const atLeast = z.coerce.number({ error: message }).int(message).min(min, message);
  return max === undefined ? atLeast : atLeast.max(max, message);
};
export const isoTimestamp = z.string();

export const runStatus = z.enum(['pending', 'queued', 'running', 'completed', 'failed', 'cancelled']);
export type RunStatus = z.infer<typeof runStatus>;
export const terminalRunStatuses: readonly RunStatus[] = ['completed', 'failed', 'cancelled'];

export const testStatus = z.enum(['draft', 'active', 'archived']);
export type TestStatus = z.infer<typeof testStatus>;

/** `{ data: null }`: an operation with no payload. */
export const noPayloadResponse = z.object({ data: z.null() });
