import { describe, expect, it } from 'vitest';
import { describeActionError, maxFrameDepth, stepAction } from '../src/step-actions.ts';

/** The message a save would answer with for this action, or null when the action is valid. */
function refusal(action: unknown): string | null {
  const result = stepAction.safeParse(action);
  return result.success ? null : describeActionError('step "s" (steps[0])', result.error);
}

describe('step vocabulary: tabs, popups and frames', () => {
  it('accepts the tab steps and the frame option in their documented shapes', () => {
    const valid = [
      { name: 'waitForPopup', selector: '#help' },
      { name: 'waitForPopup', selector: '#help', action: 'dblclick', timeout: 2000 },
      { name: 'waitForPopup', selector: '#q', action: 'press', key: 'Enter' },
      { name: 'waitForPopup', selector: 'a', frame: 'iframe#shop' },
      { name: 'switchTab', index: 0 },
      { name: 'switchTab', url: '/help' },
      { name: 'switchTab', url: '/\\/help\\?page=\\d+/i', timeout: 500 },
      { name: 'switchTab', title: 'Help' },
      { name: 'switchTab', title: '/^Help/' },
      { name: 'closeTab' },
      { name: 'closeTab', index: 1 },
      { name: 'click', selector: 'button', frame: 'iframe[title="Pay"]' },
      { name: 'assertText', selector: 'p', value: 'ok', frame: ['#outer', '#inner'] },
      { name: 'press', key: 'Enter', selector: '#q', frame: ['#outer'] },
    ];
    for (const action of valid) expect(refusal(action), JSON.stringify(action)).toBeNull();
  });

  it('refuses a popup step without its selector or with a key it does not use', () => {
    expect(refusal({ name: 'waitForPopup' })).toBe(
      'step "s" (steps[0]): action.selector: selector is required and must be a string',
    );
    expect(refusal({ name: 'waitForPopup', selector: '#a', action: 'hover' })).toBe(
      'step "s" (steps[0]): action.action: action must be click, dblclick or press',
    );
    expect(refusal({ name: 'waitForPopup', selector: '#a', action: 'press' })).toBe(
      'step "s" (steps[0]): action.key: key is required when action is press',
    );
    expect(refusal({ name: 'waitForPopup', selector: '#a', key: 'Enter' })).toBe(
      'step "s" (steps[0]): action.key: key is only used when action is press',
    );
  });

  it('switchTab takes exactly one of index, url or title, and valid patterns', () => {
    const exactlyOne = 'step "s" (steps[0]): action.name: give exactly one of index, url or title';
    expect(refusal({ name: 'switchTab' })).toBe(exactlyOne);
    expect(refusal({ name: 'switchTab', index: 1, url: '/help' })).toBe(exactlyOne);
    expect(refusal({ name: 'switchTab', index: -1 })).toBe(
      'step "s" (steps[0]): action.index: index must not be negative (0 is the first tab)',
    );
    expect(refusal({ name: 'switchTab', index: 1.5 })).toBe(
      'step "s" (steps[0]): action.index: index must be a whole number',
    );
    expect(refusal({ name: 'switchTab', url: '' })).toBe(
      'step "s" (steps[0]): action.url: url must not be empty',
    );
    expect(refusal({ name: 'switchTab', title: '/(/' })).toMatch(
      /^step "s" \(steps\[0\]\): action\.title: title is not a valid regular expression: /,
    );
    expect(refusal({ name: 'closeTab', index: 'last' })).toBe(
      'step "s" (steps[0]): action.index: index must be a number',
    );
  });

  it('refuses a frame that is empty, not a selector or nested too deep', () => {
    expect(refusal({ name: 'click', selector: 'b', frame: '' })).toBe(
      'step "s" (steps[0]): action.frame: a frame selector must not be empty',
    );
    expect(refusal({ name: 'click', selector: 'b', frame: ['#outer', ''] })).toBe(
      'step "s" (steps[0]): action.frame.1: a frame selector must not be empty',
    );
    expect(refusal({ name: 'click', selector: 'b', frame: [] })).toBe(
      'step "s" (steps[0]): action.frame: frame must name at least one iframe',
    );
    expect(refusal({ name: 'click', selector: 'b', frame: 3 })).toBe(
      'step "s" (steps[0]): action.frame: frame must be an iframe selector or a list of them',
    );
    const deep = Array.from({ length: maxFrameDepth + 1 }, (_, index) => `#f${index}`);
    expect(refusal({ name: 'click', selector: 'b', frame: deep })).toBe(
      `step "s" (steps[0]): action.frame: frame nests at most ${maxFrameDepth} iframes`,
    );
    expect(refusal({ name: 'click', selector: 'b', frame: deep.slice(1) })).toBeNull();
  });

  it('takes a frame only on steps that look an element up', () => {
    // Unknown keys pass through loose actions, but they never become a frame: the schema has none.
    const goto = stepAction.parse({ name: 'goto', url: '/', frame: '#f' });
    expect('frame' in (stepAction.options.find((s) => s.shape.name.value === 'goto')?.shape ?? {})).toBe(
      false,
    );
    expect(goto.name).toBe('goto');
    const click = stepAction.options.find((s) => s.shape.name.value === 'click');
    expect(click && 'frame' in click.shape).toBe(true);
    const screenshot = stepAction.options.find((s) => s.shape.name.value === 'assertScreenshot');
    expect(screenshot && 'frame' in screenshot.shape).toBe(false);
  });
});
