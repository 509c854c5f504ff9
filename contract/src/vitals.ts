import { z } from 'zod';

/**
 * One Web Vitals measurement of a test (`measureVitals` or `assertVitals` step), in the run
 * report's test result: milliseconds, CLS unitless; null where the page gave no value (INP
 * without an interaction, LCP on a page without content). Additive.
 */
export const stepVitals = z.object({
  stepId: z.string(),
  label: z.string().nullable(),
  url: z.string(),
  lcpMs: z.number().nullable(),
  cls: z.number(),
  inpMs: z.number().nullable(),
  tbtMs: z.number(),
  fcpMs: z.number().nullable(),
  ttfbMs: z.number().nullable(),
  domContentLoadedMs: z.number().nullable(),
  loadMs: z.number().nullable(),
});
export type StepVitals = z.infer<typeof stepVitals>;
