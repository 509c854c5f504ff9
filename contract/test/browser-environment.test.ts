import { describe, expect, it } from 'vitest';
import { type RunConfig, resolveRunConfig, runConfig } from '../src/run-config.ts';
import { describeActionError, stepAction } from '../src/step-actions.ts';

const messages = (config: unknown) => {
  const result = runConfig.safeParse(config);
  return result.success
    ? []
    : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
};

describe('run config: browser environment', () => {
  it('accepts every field in its documented shape and resolves it, later layers replacing a field whole', () => {
    const config: RunConfig = {
      device: 'Pixel 7',
      locale: 'de-DE',
      timezoneId: 'Europe/Berlin',
      geolocation: { latitude: 52.52, longitude: 13.405, accuracy: 10 },
      permissions: ['geolocation', 'clipboard-read'],
      colorScheme: 'dark',
      offline: false,
      extraHTTPHeaders: { 'X-Team': 'qa', Authorization: 'Bearer {{secrets.API_TOKEN}}' },
      httpCredentials: { username: 'ada', password: '{{secrets.BASIC_PASSWORD}}' },
    };
    expect(messages(config)).toEqual([]);
    const resolved = resolveRunConfig(config, {
      geolocation: { latitude: 1, longitude: 2 },
      locale: 'fr-FR',
    });
    expect(resolved.environment).toEqual({
      ...config,
      geolocation: { latitude: 1, longitude: 2 },
      locale: 'fr-FR',
    });
    expect(resolved.viewportSet).toBe(false);
    expect(resolveRunConfig(config, { viewport: { width: 600 } }).viewportSet).toBe(true);
    expect(resolveRunConfig().environment).toEqual({});
  });

  it('names what is wrong, field by field', () => {
    expect(messages({ timezoneId: 'Mars/Olympus_Mons' })).toEqual([
      'timezoneId: timezoneId "Mars/Olympus_Mons" is not a known time zone; e.g. "Europe/Berlin", "America/New_York", "UTC"',
    ]);
    expect(messages({ locale: 'not a locale' })).toEqual([
      'locale: locale "not a locale" is not a language tag; e.g. "de-DE", "en-GB", "fr"',
    ]);
    expect(messages({ permissions: ['telepathy'] })[0]).toMatch(
      /^permissions\.0: permission "telepathy" is not one Playwright grants; known: accelerometer, /,
    );
    expect(messages({ colorScheme: 'sepia' })).toEqual([
      'colorScheme: colorScheme must be light, dark or no-preference',
    ]);
    expect(messages({ geolocation: { latitude: 91, longitude: 0 } })).toEqual([
      'geolocation.latitude: geolocation.latitude must be between -90 and 90',
    ]);
    expect(messages({ httpCredentials: { username: 'ada', password: 'hunter2' } })).toEqual([
      'httpCredentials.password: httpCredentials.password must be a secret reference such as "{{secrets.BASIC_AUTH_PASSWORD}}", never the password itself',
    ]);
    expect(messages({ extraHTTPHeaders: { 'X-User': '{{vars.user}}' } })).toEqual([
      'extraHTTPHeaders.X-User: a header value can use only {{secrets.NAME}} and {{env.NAME}} (vars and parameters belong to steps)',
    ]);
    // The spec's own fields keep their messages.
    expect(messages({ retries: 11 })).toHaveLength(1);
  });
});

describe('Web Vitals steps', () => {
  it('accept a label, and limits', () => {
    expect(stepAction.safeParse({ name: 'measureVitals' }).success).toBe(true);
    expect(stepAction.safeParse({ name: 'measureVitals', label: 'Home' }).success).toBe(true);
    expect(stepAction.safeParse({ name: 'assertVitals', lcpMs: 2500, cls: 0.1 }).success).toBe(true);
  });

  it('refuse an assertVitals without any limit, and a negative one', () => {
    const refusal = (action: unknown) => {
      const result = stepAction.safeParse(action);
      return result.success ? null : describeActionError('step "s" (steps[0])', result.error);
    };
    expect(refusal({ name: 'assertVitals' })).toContain(
      'give at least one limit: lcpMs, cls, inpMs, tbtMs, fcpMs or ttfbMs',
    );
    expect(refusal({ name: 'assertVitals', lcpMs: -1 })).toContain('lcpMs must not be negative');
  });
});
