import { z } from 'zod';

/**
 * Fields of the network mock and response steps (`mockRoute`, `waitForResponse`), TOTP codes
 * (`totp`) and accessibility checks (`assertAccessible`); `step-actions.ts` puts them in the
 * vocabulary. Their meaning is in docs/runner.md.
 */

/** A URL pattern is a regular expression when written `/source/flags`, else a Playwright glob. */
const REGEX_PATTERN = /^\/(.+)\/([dgimsuvy]*)$/s;

/** The regular expression a `/…/flags` pattern stands for, or null for a glob. Throws when invalid. */
export function urlPatternRegex(pattern: string): RegExp | null {
  const match = REGEX_PATTERN.exec(pattern);
  if (!match?.[1]) return null;
  return new RegExp(match[1], match[2]);
}

const urlPattern = z
  .string({ error: 'url is required and must be a URL glob or a /regular expression/' })
  .min(1, 'url must not be empty')
  .superRefine((url, ctx) => {
    // Checked again at run time once a `{{…}}` template is resolved.
    if (url.includes('{{')) return;
    try {
      urlPatternRegex(url);
    } catch (error) {
      ctx.addIssue({
        code: 'custom',
        message: `url is not a valid regular expression: ${(error as Error).message}`,
      });
    }
  });

const status = z
  .number({ error: 'status must be an HTTP status code' })
  .int('status must be a whole number')
  .min(100, 'status must be between 100 and 599')
  .max(599, 'status must be between 100 and 599')
  .optional();

const timeout = z
  .number({ error: 'timeout must be a number of milliseconds' })
  .int('timeout must be a whole number of milliseconds')
  .min(0, 'timeout must not be negative')
  .max(600_000, 'timeout must be at most 600000 ms')
  .optional();

export const mockRouteShape = {
  url: urlPattern,
  status,
  headers: z
    .record(z.string(), z.string({ error: 'headers values must be strings' }), {
      error: 'headers must be an object of header names to string values',
    })
    .optional(),
  json: z.unknown().optional(),
  body: z.string({ error: 'body must be a string (use json for a JSON body)' }).optional(),
  abort: z.boolean({ error: 'abort must be true or false' }).optional(),
  times: z
    .number({ error: 'times must be a number of requests' })
    .int('times must be a whole number of requests')
    .min(1, 'times must be at least 1')
    .optional(),
};

/** At most one answer (`json`, `body` or `abort`); an aborted request has no status or headers. */
export function checkMockAnswer(
  step: { json?: unknown; body?: unknown; abort?: boolean; status?: number; headers?: unknown },
  ctx: z.RefinementCtx,
): void {
  const given = (['json', 'body', 'abort'] as const).filter((key) =>
    key === 'abort' ? step.abort === true : step[key] !== undefined,
  );
  if (given.length > 1)
    ctx.addIssue({
      code: 'custom',
      path: [given[1] as string],
      message: `give only one of json, body or abort (got ${given.join(' and ')})`,
    });
  if (step.abort === true)
    for (const key of ['status', 'headers'] as const)
      if (step[key] !== undefined)
        ctx.addIssue({ code: 'custom', path: [key], message: `${key} has no meaning when abort is true` });
}

export const waitForResponseShape = {
  url: urlPattern,
  /** Only responses to requests of this method (the page's own GET of the same URL is not it). */
  method: z
    .enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'], {
      error: 'method must be an HTTP method (GET, POST, PUT, PATCH, DELETE, HEAD or OPTIONS)',
    })
    .optional(),
  status,
  jsonPath: z
    .string({ error: 'jsonPath must be a string such as $.items[0].id' })
    .min(1, 'jsonPath must not be empty')
    .optional(),
  equals: z.unknown().optional(),
  variable: z.string({ error: 'variable must be a string' }).min(1, 'variable must not be empty').optional(),
  timeout,
};

/** A `{{secrets.NAME}}` template and nothing else: a TOTP key is never stored in a test. */
const SECRET_TEMPLATE = /^\{\{\s*secrets\.[^}\s]+\s*\}\}$/;

export const totpShape = {
  secret: z
    .string({ error: 'secret is required and must be a {{secrets.NAME}} template' })
    .refine(
      (value) => SECRET_TEMPLATE.test(value.trim()),
      'secret must be a {{secrets.NAME}} template holding an otpauth://totp/ URI or a base32 key',
    ),
  variable: z
    .string({ error: 'variable is required and must be a string' })
    .min(1, 'variable must not be empty'),
  digits: z
    .number({ error: 'digits must be a number' })
    .int('digits must be a whole number')
    .min(6, 'digits must be between 6 and 10')
    .max(10, 'digits must be between 6 and 10')
    .optional(),
  period: z
    .number({ error: 'period must be a number of seconds' })
    .int('period must be a whole number of seconds')
    .min(1, 'period must be between 1 and 300 seconds')
    .max(300, 'period must be between 1 and 300 seconds')
    .optional(),
  algorithm: z
    .enum(['SHA1', 'SHA256', 'SHA512'], { error: 'algorithm must be one of SHA1, SHA256, SHA512' })
    .optional(),
};

/** axe-core's impact levels, least severe first. */
export const accessibilityImpacts = ['minor', 'moderate', 'serious', 'critical'] as const;

export const assertAccessibleShape = {
  selector: z.string({ error: 'selector must be a string' }).min(1, 'selector must not be empty').optional(),
  impact: z
    .enum(accessibilityImpacts, { error: 'impact must be one of minor, moderate, serious, critical' })
    .optional(),
  skipRules: z
    .array(
      z.string({ error: 'skipRules must be a list of axe rule ids' }).min(1, 'a rule id must not be empty'),
      { error: 'skipRules must be a list of axe rule ids' },
    )
    .max(200, 'skipRules takes at most 200 rule ids')
    .optional(),
};
