import type { StepNode } from '@stepdeck/contract';
import { lit, type TestContext } from '../code.ts';
import { apiActionCode } from './api.ts';
import { assertionCode } from './assertions.ts';
import { browserActionCode } from './browser.ts';
import { emailActionCode } from './email.ts';
import { networkActionCode } from './network.ts';
import { scriptActionCode } from './scripts.ts';
import { frameCode, tabActionCode } from './tabs.ts';
import { visualActionCode } from './visual.ts';
import { vitalsActionCode } from './vitals.ts';

/**
 * The code of one action, by family (browser, assertions on the page, page scripts, API,
 * email); `wait` and `group` are control flow. A group's children come from `children`, which
 * compiles each child as a step.
 */
export function actionCode(
  ctx: TestContext,
  step: StepNode,
  children: (child: StepNode) => string[],
): string[] {
  const action = step.action;
  if (action.name === 'wait') return [`await sd.wait(${lit(action.ms)});`];
  if (action.name === 'group') return (step.children ?? []).flatMap(children);
  const code =
    browserActionCode(ctx, step) ??
    assertionCode(step) ??
    scriptActionCode(step) ??
    apiActionCode(step) ??
    emailActionCode(step) ??
    networkActionCode(step) ??
    visualActionCode(ctx, step) ??
    vitalsActionCode(step) ??
    tabActionCode(step);
  return code
    ? [...frameCode(step), ...code]
    : [`throw new Error(${lit(`unknown step action "${(action as { name: string }).name}"`)});`];
}
