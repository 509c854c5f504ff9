import type { StepNode } from '@stepdeck/contract';
import { lit, type TestContext, templated as t } from '../code.ts';
import { visualBaselineFile } from '../constants.ts';

/** Code of `assertScreenshot`: the runtime compares with the baseline handed to the run. */
export function visualActionCode(ctx: TestContext, step: StepNode): string[] | null {
  const action = step.action;
  if (action.name !== 'assertScreenshot') return null;
  const options = [
    `stepId: ${lit(step.id)}`,
    `baseline: ${lit(visualBaselineFile(ctx.test.id, step.id))}`,
    `mask: [${(action.mask ?? []).map((selector) => t(selector)).join(', ')}]`,
  ];
  if (action.selector !== undefined) options.push(`selector: ${t(action.selector)}`);
  if (action.maxDiffPixels !== undefined) options.push(`maxDiffPixels: ${lit(action.maxDiffPixels)}`);
  if (action.maxDiffPixelRatio !== undefined)
    options.push(`maxDiffPixelRatio: ${lit(action.maxDiffPixelRatio)}`);
  if (action.threshold !== undefined) options.push(`threshold: ${lit(action.threshold)}`);
  if (action.fullPage) options.push('fullPage: true');
  if (action.timeout !== undefined) options.push(`timeout: ${lit(action.timeout)}`);
  return [`await sd.assertScreenshot(page, { ${options.join(', ')} });`];
}
