import type { JSONReportTestResult } from '@playwright/test/reporter';
import type { FailedStep, HealedStep, LocatorSuggestions, RunStepResult } from '@stepdeck/contract';
import { HEAL_ANNOTATION } from './compiler/constants.ts';
import type { HealRecord } from './compiler/runtime/stepdeck-heal.ts';
import { describeSelector } from './compiler/runtime/stepdeck-suggest.ts';

/**
 * The runtime's `stepdeck-heal` annotations of one attempt, in the report's words: the failed
 * step's locator suggestions, the steps healed by a suggestion (marked in the step tree), and
 * the line the failure message gains ("no element for …; closest now: …").
 */

export interface HealReport {
  locatorSuggestions: LocatorSuggestions | null;
  healed: HealedStep[];
  /** One line naming the failing locator and the best suggestion; null without suggestions. */
  messageLine: string | null;
}

function recordsOf(result: JSONReportTestResult | undefined): HealRecord[] {
  const annotations = (result as { annotations?: Array<{ type: string; description?: string }> } | undefined)
    ?.annotations;
  const records: HealRecord[] = [];
  for (const annotation of annotations ?? []) {
    if (annotation.type !== HEAL_ANNOTATION || !annotation.description) continue;
    try {
      const parsed = JSON.parse(annotation.description) as HealRecord;
      if (typeof parsed.stepId === 'string' && Array.isArray(parsed.suggestions)) records.push(parsed);
    } catch {
      // Not ours to judge: an annotation that does not parse is left out.
    }
  }
  return records;
}

/** `no element for getByRole('button', { name: 'Save' }); closest now: getByRole(…)`. */
export function healMessageLine(record: Pick<HealRecord, 'selector' | 'problem' | 'suggestions'>): string {
  const wanted = describeSelector(record.selector);
  const head = record.problem === 'many' ? `several elements match ${wanted}` : `no element for ${wanted}`;
  const best = record.suggestions[0];
  return best ? `${head}; closest now: ${best.locator}` : `${head}; nothing similar on the page now`;
}

/**
 * Reads the attempt's heal records. `steps` (the attempt's step tree) gains `healed` on each
 * step a suggestion made pass; suggestions are kept for the failed step only.
 */
export function healReport(
  result: JSONReportTestResult | undefined,
  steps: RunStepResult[],
  failedStep: FailedStep | null,
): HealReport {
  const report: HealReport = { locatorSuggestions: null, healed: [], messageLine: null };
  for (const record of recordsOf(result)) {
    const index = steps.findIndex((step) => step.stepId === record.stepId);
    const step = steps[index];
    if (!step) continue;
    if (record.healed && step.status === 'passed') {
      step.healed = { from: record.selector, to: record.healed.selector, locator: record.healed.locator };
      report.healed.push({
        stepId: record.stepId,
        step: index + 1,
        from: record.selector,
        to: record.healed.selector,
        locator: record.healed.locator,
      });
      continue;
    }
    if (record.healed || failedStep?.stepId !== record.stepId) continue;
    report.locatorSuggestions = {
      stepId: record.stepId,
      step: index + 1,
      from: record.selector,
      fromLocator: describeSelector(record.selector),
      problem: record.problem,
      suggestions: record.suggestions.map(({ selector, locator, score, matches }) => ({
        selector,
        locator,
        score,
        matches,
      })),
    };
    report.messageLine = healMessageLine(record);
  }
  return report;
}
