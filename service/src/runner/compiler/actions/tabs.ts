import type { StepNode } from '@stepdeck/contract';
import { lit, locator } from '../code.ts';

/**
 * Code of the tab steps. A test that has one keeps its current page in `let page` (see
 * `specSource`): each of these assigns the page later steps act on.
 */
export function tabActionCode(step: StepNode): string[] | null {
  const action = step.action;
  switch (action.name) {
    case 'waitForPopup': {
      const options = [`selector: ${lit(action.selector)}`];
      if (action.action !== undefined) options.push(`action: ${lit(action.action)}`);
      if (action.key !== undefined) options.push(`key: ${lit(action.key)}`);
      if (action.timeout !== undefined) options.push(`timeout: ${lit(action.timeout)}`);
      return [`page = await sd.waitForPopup(page, ${locator(action.selector)}, { ${options.join(', ')} });`];
    }
    case 'switchTab': {
      const query =
        action.index !== undefined
          ? `{ index: ${lit(action.index)} }`
          : action.url !== undefined
            ? `{ url: ${lit(action.url)} }`
            : `{ title: ${lit(action.title)} }`;
      const timeout = action.timeout === undefined ? '' : `, ${lit(action.timeout)}`;
      return [`page = await sd.switchTab(page, ${query}${timeout});`];
    }
    case 'closeTab':
      return [`page = await sd.closeTab(page${action.index === undefined ? '' : `, ${lit(action.index)}`});`];
    default:
      return null;
  }
}

/**
 * The `frame` option of a step that looks an element up: its selectors are then found inside
 * those `<iframe>`s (`page.locator(frame).contentFrame()`, outer first), for this step only.
 */
export function frameCode(step: StepNode): string[] {
  const frame = (step.action as { frame?: string | string[] }).frame;
  if (frame === undefined) return [];
  const frames = Array.isArray(frame) ? frame : [frame];
  // Templates in them are resolved by the runtime when the step runs.
  return [`sd.frame(${lit(frames)});`];
}
