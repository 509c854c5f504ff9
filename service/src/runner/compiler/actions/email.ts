import type { StepNode } from '@stepdeck/contract';
import { lit } from '../code.ts';

/** Code of the email actions (poll an inbox, follow a mailed link); null for others. */
export function emailActionCode(step: StepNode): string[] | null {
  const action = step.action;
  switch (action.name) {
    case 'waitForEmail': {
      const options = [`inbox: ${lit(action.inbox)}`];
      if (action.subjectContains !== undefined)
        options.push(`subjectContains: ${lit(action.subjectContains)}`);
      if (action.from !== undefined) options.push(`from: ${lit(action.from)}`);
      if (action.timeoutMs !== undefined) options.push(`timeoutMs: ${lit(action.timeoutMs)}`);
      return [`sd.setVar(${lit(action.variable)}, await sd.waitForEmail({ ${options.join(', ')} }));`];
    }
    case 'gotoEmailLink':
      return [`await sd.goto(page, sd.emailLink(${lit(action.variable)}, ${lit(action.contains)}));`];
    default:
      return null;
  }
}
