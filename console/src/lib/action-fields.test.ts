import { stepActionNames } from '@stepdeck/contract';
import { describe, expect, it } from 'vitest';
import { actionErrors, actionFields, emptyAction, locateStepError, paletteGroups } from './action-fields.ts';

describe('action fields from the contract', () => {
  it('reads kinds and required fields from the schemas', () => {
    expect(actionFields('fill')).toEqual([
      { key: 'description', kind: 'text', required: false, choices: [] },
      { key: 'selector', kind: 'text', required: true, choices: [] },
      { key: 'value', kind: 'text', required: true, choices: [] },
      {
        key: 'frame',
        kind: 'list',
        required: false,
        choices: [],
        hint: 'the iframe selectors, outer first, one per line',
      },
    ]);
    const request = actionFields('request');
    expect(request.find((field) => field.key === 'method')?.choices).toContain('POST');
    expect(request.find((field) => field.key === 'headers')?.kind).toBe('json');
    expect(actionFields('setInputFiles').find((field) => field.key === 'files')?.kind).toBe('list');
    expect(actionFields('wait').find((field) => field.key === 'ms')).toMatchObject({
      kind: 'number',
      required: true,
    });
    // Every assertion on the page takes `not` and `timeout`; a list of texts is one per line.
    expect(actionFields('assertClass').map((field) => [field.key, field.kind, field.required])).toEqual([
      ['description', 'text', false],
      ['selector', 'text', true],
      ['value', 'text', true],
      ['exact', 'boolean', false],
      ['not', 'boolean', false],
      ['timeout', 'number', false],
      ['frame', 'list', false],
    ]);
    // Tabs: a popup's trigger is a choice; switchTab has no `frame` (it looks no element up).
    expect(actionFields('waitForPopup').find((field) => field.key === 'action')?.choices).toEqual([
      'click',
      'dblclick',
      'press',
    ]);
    expect(actionFields('switchTab').map((field) => field.key)).toEqual([
      'description',
      'index',
      'url',
      'title',
      'timeout',
    ]);
    expect(actionFields('assertTexts').find((field) => field.key === 'values')?.kind).toBe('list');
    expect(actionFields('assertScript').find((field) => field.key === 'equals')?.kind).toBe('json');
    expect(actionFields('dispatchEvent').find((field) => field.key === 'eventInit')?.kind).toBe('json');
  });
  it('the palette holds the whole vocabulary, each action once', () => {
    const listed = paletteGroups.flatMap((group) => group.actions);
    expect([...listed].sort()).toEqual([...stepActionNames].sort());
  });
  it('validates with the contract: an empty selector is named on its field', () => {
    expect(actionErrors(emptyAction('click'))).toEqual({ selector: 'selector must not be empty' });
    expect(actionErrors({ name: 'goto', url: 'file:///etc/passwd' }).url).toMatch(/not allowed/);
    expect(actionErrors({ name: 'goto', url: '/page' })).toEqual({});
    expect(
      actionErrors({ name: 'assertAttribute', selector: '#a', attribute: 'href', value: '(', regex: true })
        .value,
    ).toMatch(/^value is not a valid regular expression/);
  });
  it("network, TOTP and accessibility steps: their fields and the contract's messages", () => {
    const fields = (name: string) =>
      actionFields(name).map((field) => `${field.key}:${field.kind}${field.required ? '!' : ''}`);
    expect(fields('mockRoute')).toEqual([
      'description:text',
      'url:text!',
      'status:number',
      'headers:json',
      'json:json',
      'body:text',
      'abort:boolean',
      'times:number',
    ]);
    expect(fields('waitForResponse')).toEqual([
      'description:text',
      'url:text!',
      'method:choice',
      'status:number',
      'jsonPath:text',
      'equals:json',
      'variable:text',
      'timeout:number',
    ]);
    expect(fields('totp')).toEqual([
      'description:text',
      'secret:text!',
      'variable:text!',
      'digits:number',
      'period:number',
      'algorithm:choice',
    ]);
    expect(actionFields('totp').find((field) => field.key === 'secret')?.hint).toMatch(/secrets\.NAME/);
    expect(actionFields('assertAccessible').find((field) => field.key === 'impact')?.choices).toEqual([
      'minor',
      'moderate',
      'serious',
      'critical',
    ]);
    expect(actionFields('assertAccessible').find((field) => field.key === 'skipRules')?.kind).toBe('list');
    expect(actionErrors({ name: 'mockRoute', url: '**/api', json: {}, abort: true }).abort).toBe(
      'give only one of json, body or abort (got json and abort)',
    );
    expect(actionErrors(emptyAction('totp')).secret).toMatch(
      /^secret must be a \{\{secrets\.NAME\}\} template/,
    );
  });
  it('locates the step and field of a save error', () => {
    expect(
      locateStepError('step "Log in" (steps[2].children[0]): action.selector: selector is required'),
    ).toEqual({ path: [2, 0], field: 'selector', text: 'selector is required' });
    expect(locateStepError('something else')).toBeUndefined();
  });
});
