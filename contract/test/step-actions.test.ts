import { describe, expect, it } from 'vitest';
import { describeActionError, stepAction } from '../src/step-actions.ts';

/** The message a save would answer with for this action, or null when the action is valid. */
function refusal(action: unknown): string | null {
  const result = stepAction.safeParse(action);
  return result.success ? null : describeActionError('step "s" (steps[0])', result.error);
}

describe('step vocabulary: navigation, element state and page scripts', () => {
  it('accepts every new action in its documented shape', () => {
    const valid = [
      { name: 'reload' },
      { name: 'goBack' },
      { name: 'goForward' },
      { name: 'type', selector: '#q', value: 'abc', delay: 50 },
      { name: 'focus', selector: '#q' },
      { name: 'blur', selector: '#q' },
      { name: 'scrollIntoView', selector: '#footer' },
      { name: 'dragTo', selector: '#card', target: '#done' },
      { name: 'dispatchEvent', selector: '#q', event: 'input', eventInit: { bubbles: true } },
      { name: 'assertChecked', selector: '#agree', checked: false, timeout: 1000 },
      { name: 'assertEnabled', selector: '#save' },
      { name: 'assertDisabled', selector: '#save', not: true },
      { name: 'assertClass', selector: 'li', value: 'completed', exact: true, not: true },
      { name: 'assertAttribute', selector: 'a', attribute: 'href' },
      { name: 'assertAttribute', selector: 'a', attribute: 'href', value: '^/items/\\d+$', regex: true },
      { name: 'assertCss', selector: '#box', property: 'color', value: 'rgb(255, 0, 0)' },
      { name: 'assertTexts', selector: 'li', values: ['one', 'two'], exact: true },
      { name: 'assertText', selector: 'h1', value: 'Hi', not: true, timeout: 0 },
      { name: 'evaluate', script: 'localStorage.length', variable: 'n' },
      { name: 'assertScript', script: 'return window.ready;' },
      { name: 'assertScript', script: 'document.title', equals: 'Home' },
      { name: 'assertScript', script: 'location.hash', matches: '^#/{{vars.route}}' },
    ];
    for (const action of valid) expect(refusal(action), JSON.stringify(action)).toBeNull();
  });

  it('refuses bad input, naming the field', () => {
    expect(refusal({ name: 'dragTo', selector: '#a' })).toBe(
      'step "s" (steps[0]): action.target: target is required and must be a string',
    );
    expect(refusal({ name: 'assertTexts', selector: 'li', values: 'one' })).toBe(
      'step "s" (steps[0]): action.values: values must be a list of texts',
    );
    expect(refusal({ name: 'assertChecked', selector: '#a', timeout: -1 })).toBe(
      'step "s" (steps[0]): action.timeout: timeout must not be negative',
    );
    expect(refusal({ name: 'assertChecked', selector: '#a', timeout: '5s' })).toBe(
      'step "s" (steps[0]): action.timeout: timeout must be a number of milliseconds',
    );
    expect(refusal({ name: 'assertVisible', selector: '#a', not: 'yes' })).toBe(
      'step "s" (steps[0]): action.not: not must be true or false',
    );
    expect(
      refusal({ name: 'assertAttribute', selector: 'a', attribute: 'href', value: '([a-z', regex: true }),
    ).toMatch(/^step "s" \(steps\[0\]\): action\.value: value is not a valid regular expression: /);
    expect(refusal({ name: 'assertCss', selector: '#a', value: 'red' })).toBe(
      'step "s" (steps[0]): action.property: property is required and must be a string',
    );
    expect(refusal({ name: 'evaluate', script: '' })).toBe(
      'step "s" (steps[0]): action.script: script must not be empty',
    );
    expect(refusal({ name: 'assertScript', script: 'x', equals: 1, matches: '1' })).toBe(
      'step "s" (steps[0]): action.matches: give either equals or matches, not both',
    );
    expect(refusal({ name: 'assertScript', script: 'x', matches: '*' })).toMatch(
      /^step "s" \(steps\[0\]\): action\.matches: matches is not a valid regular expression/,
    );
    expect(refusal({ name: 'dispatchEvent', selector: '#a', event: 'click', eventInit: [1] })).toBe(
      'step "s" (steps[0]): action.eventInit: eventInit must be a JSON object',
    );
  });

  it('leaves a templated pattern to be checked when the step runs', () => {
    expect(
      refusal({ name: 'assertCss', selector: '#a', property: 'width', value: '{{vars.w}}(', regex: true }),
    ).toBeNull();
  });
});
