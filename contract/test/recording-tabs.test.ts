import { describe, expect, it } from 'vitest';
import { mapRecording, parseRecording, type RecordedAction } from '../src/recording.ts';
import { stepAction } from '../src/step-actions.ts';

/**
 * Popups, tabs and frames in a recording, in the shape of the pinned recorder's JSONL: each
 * action names its page (`pageGuid`), an action that opened a popup carries a `popup` signal
 * with the new page's guid, and a selector into an iframe enters it with
 * `internal:control=enter-frame` (what codegen writes as `.contentFrame()`).
 */
const main = 'page@main';
const help = 'page@help';
const chat = 'page@chat';
const line = (action: Partial<RecordedAction> & { name: string }) =>
  JSON.stringify({ signals: [], pageGuid: main, ...action });
const click = (selector: string, extra: Partial<RecordedAction> = {}) =>
  line({ name: 'click', selector, button: 'left', modifiers: 0, clickCount: 1, ...extra });
const enter = ' >> internal:control=enter-frame >> ';

describe('recorded popups, tabs and frames → steps', () => {
  it('follows popups, switches back by index and closes tabs closed mid-recording', () => {
    const jsonl = [
      line({ name: 'openPage', url: 'about:blank' }),
      line({ name: 'navigate', url: 'https://shop.example/' }),
      click('#help', { signals: [{ name: 'popup', popupPageGuid: help }] }),
      line({ name: 'openPage', url: 'about:blank', pageGuid: help }),
      line({ name: 'assertText', selector: 'h1', text: 'Help centre', substring: true, pageGuid: help }),
      click('#back'),
      line({
        name: 'press',
        selector: '#chat',
        key: 'Enter',
        modifiers: 0,
        signals: [{ name: 'popup', popupPageGuid: chat }],
      }),
      line({ name: 'fill', selector: '#reply', text: 'Hi', pageGuid: chat }),
      line({ name: 'closePage', pageGuid: help }),
      line({ name: 'closePage', pageGuid: chat }),
      click('#done'),
      // The recording ends: its tabs close, which are no steps.
      line({ name: 'closePage' }),
    ].join('\n');
    const mapped = mapRecording(parseRecording(jsonl));
    expect(mapped.steps.map((step) => step.action)).toEqual([
      { name: 'goto', url: 'https://shop.example/' },
      { name: 'waitForPopup', selector: '#help' },
      { name: 'assertText', selector: 'h1', value: 'Help centre', exact: false },
      { name: 'switchTab', index: 0 },
      { name: 'click', selector: '#back' },
      { name: 'waitForPopup', selector: '#chat', action: 'press', key: 'Enter' },
      { name: 'fill', selector: '#reply', value: 'Hi' },
      // Help is tab 2 (index 1) and not the current one; then chat, the current one, closes.
      { name: 'closeTab', index: 1 },
      { name: 'closeTab' },
      { name: 'click', selector: '#done' },
    ]);
    expect(mapped.steps[1]?.name).toBe('Click #help (opens a popup)');
    expect(mapped.steps[3]?.name).toBe('Switch to tab 1');
    expect(mapped.unmapped).toEqual([]);
    for (const step of mapped.steps) expect(stepAction.safeParse(step.action).success).toBe(true);
  });

  it('a double-click popup keeps its trigger; actions on a tab no step opened are listed', () => {
    const jsonl = [
      line({
        name: 'click',
        selector: '#open',
        button: 'left',
        modifiers: 0,
        clickCount: 2,
        signals: [{ name: 'popup', popupPageGuid: help }],
      }),
      line({ name: 'click', selector: '#x', clickCount: 1, pageGuid: 'page@typed-by-hand' }),
      line({ name: 'click', selector: '#y', clickCount: 1, pageGuid: help }),
    ].join('\n');
    const mapped = mapRecording(parseRecording(jsonl));
    expect(mapped.steps.map((step) => step.action)).toEqual([
      { name: 'waitForPopup', selector: '#open', action: 'dblclick' },
      { name: 'click', selector: '#y' },
    ]);
    expect(mapped.unmapped).toEqual([{ action: 'click', reason: 'on a tab no recorded step opened' }]);
  });

  it('moves the iframes a selector enters into the frame option, nested ones as a list', () => {
    const frame = 'internal:attr=[title="Shop"i]';
    const inner = 'iframe[name="card"]';
    const jsonl = [
      click(`${frame}${enter}internal:role=button[name="Buy"i]`),
      line({ name: 'fill', selector: `${frame}${enter}${inner}${enter}#number`, text: '4242' }),
      click(`${frame}${enter}#help`, { signals: [{ name: 'popup', popupPageGuid: help }] }),
      line({ name: 'assertVisible', selector: 'h1', pageGuid: help }),
    ].join('\n');
    const mapped = mapRecording(parseRecording(jsonl));
    expect(mapped.steps.map((step) => step.action)).toEqual([
      { name: 'click', selector: 'internal:role=button[name="Buy"i]', frame },
      { name: 'fill', selector: '#number', value: '4242', frame: [frame, inner] },
      { name: 'waitForPopup', selector: '#help', frame },
      { name: 'assertVisible', selector: 'h1' },
    ]);
    for (const step of mapped.steps) expect(stepAction.safeParse(step.action).success).toBe(true);
  });

  it('keeps a selector whole when it enters more iframes than a step may name', () => {
    const selector = [...Array.from({ length: 6 }, (_, index) => `#f${index}`), 'button'].join(enter);
    const mapped = mapRecording(parseRecording(click(selector)));
    expect(mapped.steps.map((step) => step.action)).toEqual([{ name: 'click', selector }]);
  });
});
