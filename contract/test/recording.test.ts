import { describe, expect, it } from 'vitest';
import { describeLocator, mapRecording, parseRecording, type RecordedAction } from '../src/recording.ts';
import { stepAction } from '../src/step-actions.ts';

/**
 * The mapping's branches that a recording in the root test/record.test.ts does not reach (Playwright's
 * recorder writes them for input a test cannot easily give it: hovers, multi-selects, a second
 * tab). The lines have the shape of the pinned recorder's JSONL (see that test for real output).
 */
const page = 'page@1';
const line = (action: Partial<RecordedAction> & { name: string }) =>
  JSON.stringify({ signals: [], pageGuid: page, ...action });
const role = (body: string, name: string, exact = false) => ({
  kind: 'role',
  body,
  options: { attrs: [], exact, name },
});

describe('recorded actions → steps', () => {
  it('maps every action with a step, skips the tab markers and lists the rest with a reason', () => {
    const jsonl = [
      JSON.stringify({ browserName: 'chromium', launchOptions: { headless: false }, contextOptions: {} }),
      line({ name: 'openPage', url: 'about:blank' }),
      line({ name: 'navigate', url: 'https://shop.example/' }),
      line({ name: 'hover', selector: '#menu', locator: { kind: 'default', body: '#menu' } }),
      line({ name: 'press', selector: '#q', key: 'a', modifiers: 2 }),
      line({ name: 'press', key: 'Escape', modifiers: 0 }),
      line({ name: 'select', selector: '#size', options: ['s', 'm'] }),
      line({ name: 'click', selector: '#x', button: 'right', modifiers: 0, clickCount: 1 }),
      line({ name: 'click', selector: '#x', button: 'left', modifiers: 0, clickCount: 3 }),
      line({
        name: 'click',
        selector: '#canvas',
        button: 'left',
        modifiers: 0,
        clickCount: 1,
        position: { x: 3, y: 4 },
      }),
      line({ name: 'assertSnapshot', selector: 'main' }),
      line({
        name: 'click',
        selector: 'internal:role=link[name="Help"i]',
        locator: role('link', 'Help'),
        button: 'left',
        modifiers: 0,
        clickCount: 1,
        signals: [{ name: 'popup' }],
      }),
      JSON.stringify({
        name: 'click',
        selector: '#in-popup',
        clickCount: 1,
        pageGuid: 'page@2',
        signals: [],
      }),
      JSON.stringify({ name: 'closePage', pageGuid: 'page@2', signals: [] }),
      line({ name: 'assertValue', selector: '#q', value: '' }),
      line({ name: 'assertChecked', selector: '#terms', checked: true }),
      line({ name: 'assertChecked', selector: '#news', checked: false }),
      line({ name: 'assertChecked', checked: true }),
      line({ name: 'scrollIntoView', selector: '#footer' }),
      line({ name: 'closePage' }),
      '',
    ].join('\n');
    const mapped = mapRecording(parseRecording(jsonl));
    expect(mapped.steps).toEqual([
      { name: 'Go to https://shop.example/', action: { name: 'goto', url: 'https://shop.example/' } },
      { name: "Hover locator('#menu')", action: { name: 'hover', selector: '#menu' } },
      { name: 'Press #q ControlOrMeta+a', action: { name: 'press', selector: '#q', key: 'ControlOrMeta+a' } },
      { name: 'Press Escape', action: { name: 'press', key: 'Escape' } },
      // The popup it opened (its page unnamed here) is where the next click happens, then closes.
      {
        name: "Click getByRole('link', { name: 'Help' }) (opens a popup)",
        action: { name: 'waitForPopup', selector: 'internal:role=link[name="Help"i]' },
      },
      { name: 'Click #in-popup', action: { name: 'click', selector: '#in-popup' } },
      { name: 'Close tab', action: { name: 'closeTab' } },
      { name: 'Expect value of #q', action: { name: 'assertValue', selector: '#q', value: '' } },
      { name: 'Expect checked #terms', action: { name: 'assertChecked', selector: '#terms' } },
      {
        name: 'Expect unchecked #news',
        action: { name: 'assertChecked', selector: '#news', checked: false },
      },
    ]);
    expect(mapped.unmapped).toEqual([
      { action: 'select', reason: '2 options selected (a step selects one)' },
      { action: 'click', reason: 'right button' },
      { action: 'click', reason: '3 clicks' },
      { action: 'click', reason: 'at a position inside the element' },
      { action: 'assertSnapshot', reason: 'no step asserts an ARIA snapshot' },
      { action: 'assertChecked', reason: 'the recorder gave no selector' },
      { action: 'scrollIntoView', reason: 'no step does this' },
    ]);
    // Every step is a valid action of the contract.
    for (const step of mapped.steps) expect(stepAction.safeParse(step.action).success).toBe(true);
  });

  it('names steps after the locator as Playwright writes it in JavaScript', () => {
    expect(describeLocator(role('button', 'Save', true))).toBe(
      "getByRole('button', { name: 'Save', exact: true })",
    );
    expect(describeLocator({ kind: 'label', body: 'Email', options: { exact: false } })).toBe(
      "getByLabel('Email')",
    );
    expect(describeLocator({ kind: 'text', body: "It's", options: { exact: true } })).toBe(
      "getByText('It\\'s', { exact: true })",
    );
    expect(describeLocator({ kind: 'placeholder', body: 'Search' })).toBe("getByPlaceholder('Search')");
    expect(describeLocator({ kind: 'alt', body: 'Logo' })).toBe("getByAltText('Logo')");
    expect(describeLocator({ kind: 'title', body: 'Help' })).toBe("getByTitle('Help')");
    expect(describeLocator({ kind: 'test-id', body: 'go' })).toBe("getByTestId('go')");
    expect(
      describeLocator({
        kind: 'default',
        body: 'iframe',
        next: {
          kind: 'frame',
          body: '',
          next: { kind: 'role', body: 'listitem', options: { attrs: [] }, next: { kind: 'nth', body: 1 } },
        },
      }),
    ).toBe("locator('iframe').contentFrame().getByRole('listitem').nth(1)");
    expect(describeLocator({ kind: 'text', body: 'Item', next: { kind: 'last', body: '' } })).toBe(
      "getByText('Item').last()",
    );
  });

  it('refuses output that is not JSONL, naming the line', () => {
    expect(() => parseRecording('{"name":"navigate"}\nawait page.goto("x");')).toThrow(
      "the recorder's output is not JSONL (line 2)",
    );
  });
});
