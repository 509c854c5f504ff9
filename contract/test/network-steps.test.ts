import { describe, expect, it } from 'vitest';
import { urlPatternRegex } from '../src/network-steps.ts';
import { describeActionError, stepAction } from '../src/step-actions.ts';

/** The message a save would answer with for this action, or null when the action is valid. */
function refusal(action: unknown): string | null {
  const result = stepAction.safeParse(action);
  return result.success ? null : describeActionError('step "s" (steps[0])', result.error);
}

describe('step vocabulary: network mocks, responses, TOTP and accessibility', () => {
  it('accepts every new action in its documented shape', () => {
    const valid = [
      { name: 'mockRoute', url: '**/api/items' },
      { name: 'mockRoute', url: '/api/items', json: { items: [] }, status: 201, times: 1 },
      { name: 'mockRoute', url: '/\\/api\\/items(\\?.*)?$/i', body: 'plain', headers: { 'x-a': 'b' } },
      { name: 'mockRoute', url: '**/api/*', abort: true },
      { name: 'mockRoute', url: '**/api/*', abort: false, json: null },
      { name: 'waitForResponse', url: '**/api/items' },
      {
        name: 'waitForResponse',
        url: '/api/items',
        status: 200,
        jsonPath: '$.items[0].name',
        equals: '{{vars.first}}',
        variable: 'items',
        timeout: 2000,
      },
      { name: 'totp', secret: '{{secrets.MFA}}', variable: 'code' },
      {
        name: 'totp',
        secret: ' {{ secrets.MFA_KEY }} ',
        variable: 'code',
        digits: 8,
        period: 60,
        algorithm: 'SHA512',
      },
      { name: 'assertAccessible' },
      { name: 'assertAccessible', selector: 'main', impact: 'minor', skipRules: ['color-contrast'] },
    ];
    for (const action of valid) expect(refusal(action), JSON.stringify(action)).toBeNull();
  });

  it('refuses bad input, naming the field', () => {
    const at = 'step "s" (steps[0])';
    expect(refusal({ name: 'mockRoute' })).toBe(
      `${at}: action.url: url is required and must be a URL glob or a /regular expression/`,
    );
    expect(refusal({ name: 'mockRoute', url: '/api(/' })).toMatch(
      /^step "s" \(steps\[0\]\): action\.url: url is not a valid regular expression: /,
    );
    expect(refusal({ name: 'mockRoute', url: '/a', json: {}, body: 'x' })).toBe(
      `${at}: action.body: give only one of json, body or abort (got json and body)`,
    );
    expect(refusal({ name: 'mockRoute', url: '/a', body: 'x', abort: true })).toBe(
      `${at}: action.abort: give only one of json, body or abort (got body and abort)`,
    );
    expect(refusal({ name: 'mockRoute', url: '/a', abort: true, status: 500 })).toBe(
      `${at}: action.status: status has no meaning when abort is true`,
    );
    expect(refusal({ name: 'mockRoute', url: '/a', status: 42 })).toBe(
      `${at}: action.status: status must be between 100 and 599`,
    );
    expect(refusal({ name: 'mockRoute', url: '/a', body: { a: 1 } })).toBe(
      `${at}: action.body: body must be a string (use json for a JSON body)`,
    );
    expect(refusal({ name: 'mockRoute', url: '/a', headers: { a: 1 } })).toBe(
      `${at}: action.headers.a: headers values must be strings`,
    );
    expect(refusal({ name: 'mockRoute', url: '/a', times: 0 })).toBe(
      `${at}: action.times: times must be at least 1`,
    );
    expect(refusal({ name: 'waitForResponse', url: '' })).toBe(`${at}: action.url: url must not be empty`);
    expect(refusal({ name: 'waitForResponse', url: '/a', jsonPath: '' })).toBe(
      `${at}: action.jsonPath: jsonPath must not be empty`,
    );
    expect(refusal({ name: 'waitForResponse', url: '/a', timeout: -1 })).toBe(
      `${at}: action.timeout: timeout must not be negative`,
    );
    expect(refusal({ name: 'totp', secret: 'JBSWY3DPEHPK3PXP', variable: 'code' })).toBe(
      `${at}: action.secret: secret must be a {{secrets.NAME}} template holding an otpauth://totp/ URI or a base32 key`,
    );
    expect(refusal({ name: 'totp', secret: '{{secrets.A}}' })).toBe(
      `${at}: action.variable: variable is required and must be a string`,
    );
    expect(refusal({ name: 'totp', secret: '{{secrets.A}}', variable: 'c', digits: 4 })).toBe(
      `${at}: action.digits: digits must be between 6 and 10`,
    );
    expect(refusal({ name: 'totp', secret: '{{secrets.A}}', variable: 'c', algorithm: 'MD5' })).toBe(
      `${at}: action.algorithm: algorithm must be one of SHA1, SHA256, SHA512`,
    );
    expect(refusal({ name: 'waitForResponse', url: '**/api', method: 'FETCH' })).toBe(
      `${at}: action.method: method must be an HTTP method (GET, POST, PUT, PATCH, DELETE, HEAD or OPTIONS)`,
    );
    expect(refusal({ name: 'waitForResponse', url: '**/api', method: 'POST' })).toBeNull();
    expect(refusal({ name: 'assertAccessible', impact: 'severe' })).toBe(
      `${at}: action.impact: impact must be one of minor, moderate, serious, critical`,
    );
    expect(refusal({ name: 'assertAccessible', skipRules: 'color-contrast' })).toBe(
      `${at}: action.skipRules: skipRules must be a list of axe rule ids`,
    );
  });

  it('reads /…/flags as a regular expression and anything else as a glob', () => {
    expect(urlPatternRegex('/\\/api\\/items$/i')).toEqual(/\/api\/items$/i);
    expect(urlPatternRegex('**/api/items')).toBeNull();
    expect(urlPatternRegex('/api/items')).toBeNull();
    expect(() => urlPatternRegex('/(/')).toThrow();
  });
});
