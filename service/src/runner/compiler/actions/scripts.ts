import type { StepNode } from '@stepdeck/contract';
import { lit, templated as t } from '../code.ts';

/**
 * Code of the page scripts: `evaluate` runs the user's script in the page (Playwright's
 * `page.evaluate`, never in the runner's Node) and keeps its value. Templates are resolved at
 * run time by `sd.t`, so a `{{secrets.X}}` in a script stays a placeholder in the file.
 */
export function scriptActionCode(step: StepNode): string[] | null {
  const action = step.action;
  switch (action.name) {
    case 'evaluate': {
      const run = `await sd.evaluate(page, ${t(action.script)})`;
      return action.variable ? [`sd.setVar(${lit(action.variable)}, ${run});`] : [`${run};`];
    }
    default:
      return null;
  }
}
