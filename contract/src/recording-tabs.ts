import { maxFrameDepth, type StepAction } from './step-actions.ts';

/**
 * Tabs, popups and frames in a recording. The recorder names the page of every action
 * (`pageGuid`) and the popup an action opened (a `popup` signal with the new page's guid);
 * steps instead keep one current page, changed by `waitForPopup`, `switchTab` and `closeTab`.
 * Frames come inside the selector (`iframe >> internal:control=enter-frame >> button`); a
 * step names them in its `frame` option instead.
 */

const ENTER_FRAME = ' >> internal:control=enter-frame >> ';

/** The action with the iframes its selector enters moved into `frame` (outer first). */
export function withFrame(action: StepAction): StepAction {
  const selector = (action as { selector?: unknown }).selector;
  if (typeof selector !== 'string' || !selector.includes(ENTER_FRAME)) return action;
  const frames = selector.split(ENTER_FRAME);
  const own = frames.pop() ?? '';
  // Deeper than a step may name, or a part the split cannot stand for: the selector stays whole.
  if (frames.length > maxFrameDepth || own.trim() === '' || frames.some((frame) => frame.trim() === ''))
    return action;
  return { ...action, selector: own, frame: frames.length === 1 ? frames[0] : frames } as StepAction;
}

type Step = { name: string; action: StepAction };

/** The recorder's pages in opening order and the one the steps act on. */
export class RecordedTabs {
  private readonly pages: string[] = [];
  private current: string | undefined;
  /** A popup whose page the recorder did not name: the next unknown page is that one. */
  private unnamedPopup: string | undefined;
  private unnamed = 0;

  /**
   * Before an action on `pageGuid`: nothing when it is the current page, a `switchTab` step
   * when it is another tab the steps opened, or why the action has no step.
   */
  enter(pageGuid: string | undefined): { step?: Step } | { reason: string } {
    if (!pageGuid) return {};
    if (this.current === undefined) {
      this.pages.push(pageGuid);
      this.current = pageGuid;
      return {};
    }
    if (pageGuid === this.current) return {};
    const index = this.pages.indexOf(pageGuid);
    if (index < 0) {
      if (this.unnamedPopup === undefined || this.unnamedPopup !== this.current)
        return { reason: 'on a tab no recorded step opened' };
      this.pages[this.pages.indexOf(this.unnamedPopup)] = pageGuid;
      this.unnamedPopup = undefined;
      this.current = pageGuid;
      return {};
    }
    this.current = pageGuid;
    return { step: { name: `Switch to tab ${index + 1}`, action: { name: 'switchTab', index } } };
  }

  /** The action that opened a popup: its page becomes the current one. */
  opened(popupPageGuid: string | undefined): void {
    const guid = popupPageGuid ?? `unnamed-popup-${++this.unnamed}`;
    if (popupPageGuid === undefined) this.unnamedPopup = guid;
    this.pages.push(guid);
    this.current = guid;
  }

  /** A tab closing while the recording goes on: a `closeTab` step (none for a page never used). */
  closed(pageGuid: string | undefined): Step | undefined {
    const index = pageGuid === undefined ? -1 : this.pages.indexOf(pageGuid);
    if (index < 0 || this.pages.length <= 1) return undefined;
    const wasCurrent = pageGuid === this.current;
    this.pages.splice(index, 1);
    if (!wasCurrent) return { name: `Close tab ${index + 1}`, action: { name: 'closeTab', index } };
    // As the step does at run time: the last tab still open becomes the current one.
    this.current = this.pages[this.pages.length - 1];
    return { name: 'Close tab', action: { name: 'closeTab' } };
  }
}

/** The step for an action that opened a popup: the same trigger, waiting for the new page. */
export function popupStep(step: Step): Step | undefined {
  const action = step.action;
  const frame = (action as { frame?: string | string[] }).frame;
  const inFrame = frame === undefined ? {} : { frame };
  if (action.name === 'click')
    return {
      name: `${step.name} (opens a popup)`,
      action: { name: 'waitForPopup', selector: action.selector, ...inFrame },
    };
  if (action.name === 'dblclick')
    return {
      name: `${step.name} (opens a popup)`,
      action: { name: 'waitForPopup', selector: action.selector, action: 'dblclick', ...inFrame },
    };
  if (action.name === 'press' && action.selector)
    return {
      name: `${step.name} (opens a popup)`,
      action: {
        name: 'waitForPopup',
        selector: action.selector,
        action: 'press',
        key: action.key,
        ...inFrame,
      },
    };
  return undefined;
}
