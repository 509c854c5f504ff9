import type { StepNode } from '@stepdeck/contract';
import { lit, templated as t } from '../code.ts';

/**
 * Code of the Web Vitals steps: `stepdeck-vitals.ts` reads what its observers (installed on
 * the context when the test starts) saw on the current page and records it in the result.
 */
export function vitalsActionCode(step: StepNode): string[] | null {
  const action = step.action;
  switch (action.name) {
    case 'measureVitals': {
      const label = action.label === undefined ? '' : `, label: ${t(action.label)}`;
      return [`await measureVitals(page, testInfo, { stepId: ${lit(step.id)}${label} });`];
    }
    case 'assertVitals': {
      const { lcpMs, cls, inpMs, tbtMs, fcpMs, ttfbMs } = action;
      const limits = Object.fromEntries(
        Object.entries({ lcpMs, cls, inpMs, tbtMs, fcpMs, ttfbMs }).filter(
          ([, value]) => value !== undefined,
        ),
      );
      return [`await assertVitals(page, testInfo, { stepId: ${lit(step.id)}, limits: ${lit(limits)} });`];
    }
    default:
      return null;
  }
}
