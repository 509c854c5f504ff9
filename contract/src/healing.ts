import { z } from 'zod';
import { dataOf } from './common.ts';

/**
 * Locator suggestions and healing: when a step's locator finds nothing (or several elements),
 * the run records the page's closest elements; with `heal: retry` the step ran once more with
 * the best one. Additive fields of the run report; statuses keep the spec's values.
 */

/** One proposed element: the selector a step would store, and the same as Playwright code. */
export const locatorSuggestion = z.object({
  /** Playwright selector syntax, as steps store it (`internal:role=button[name="Save changes"i]`). */
  selector: z.string(),
  /** The same as Playwright's JavaScript writes it: `getByRole('button', { name: 'Save changes' })`. */
  locator: z.string(),
  /** 0…1: how close the element is to what the step's selector asked for. */
  score: z.number(),
  /** How many elements it matched on the page when the step failed. */
  matches: z.number().int(),
});
export type LocatorSuggestion = z.infer<typeof locatorSuggestion>;

/** The failing locator of a test's failed step, with the page's closest elements, best first. */
export const locatorSuggestions = z.object({
  /** The step's node id (as in `failedStep.stepId` and `steps[].stepId`). */
  stepId: z.string(),
  /** 1-based position of the step in the test's step tree (`steps[]`). */
  step: z.number().int(),
  /** The selector as the step holds it, and as Playwright code. */
  from: z.string(),
  fromLocator: z.string(),
  /** `none`: it matched nothing; `many`: several elements where the action needs one. */
  problem: z.enum(['none', 'many']),
  suggestions: z.array(locatorSuggestion),
});
export type LocatorSuggestions = z.infer<typeof locatorSuggestions>;

/** A step that passed with a suggestion instead of its own locator (`heal: retry`). */
export const healedStep = z.object({
  stepId: z.string(),
  step: z.number().int(),
  /** The step's selector, which found nothing. */
  from: z.string(),
  /** The selector it passed with, and the same as Playwright code. */
  to: z.string(),
  locator: z.string(),
});
export type HealedStep = z.infer<typeof healedStep>;

/** Body of `POST /console/v1/test-runs/:runId/tests/:testId/steps/:stepId/use-locator`. */
export const useLocatorBody = z.object({
  /** One of the step's suggestions in this run: its `selector` (or its `locator` text). */
  locator: z.string().min(1, 'locator must not be empty').max(4_000),
});
export const useLocatorResult = z.object({
  testId: z.string(),
  stepId: z.string(),
  /** The selector the step holds now. */
  selector: z.string(),
  /** The test's working revision and its edit version after the change. */
  revisionId: z.string(),
  editVersion: z.number().int(),
});
export const useLocatorResponse = dataOf(useLocatorResult);
