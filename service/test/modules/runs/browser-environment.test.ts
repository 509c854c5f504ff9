import { suggestedDevices } from '@stepdeck/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumDeviceNames, deviceProblem } from '../../../src/runner/devices.ts';
import { createTestApp, type TestApp } from '../../helper.ts';
import { apiTest, createTest, multipart } from './helpers.ts';

/**
 * The run config's browser environment (device, time zone, credentials...) is checked where it
 * comes in: a trigger or a saved test naming a device Playwright does not know, or one that
 * needs a browser this service does not run, gets a 400 naming it; the contract's checks (time
 * zone, secret-only password, permissions) answer 400 the same way. No run is created.
 */
describe('browser environment in the run config: refused with a 400 naming the problem', () => {
  let t: TestApp;
  let testId: string;

  beforeAll(async () => {
    t = await createTestApp();
    testId = await createTest(t, apiTest('Health', 'http://127.0.0.1:9/health'));
  });
  afterAll(async () => {
    await t?.close();
  });

  const trigger = (config: Record<string, unknown>) =>
    t.api({ method: 'POST', url: `/v1/tests/${testId}/remote-run`, payload: { config } });

  it("offers only devices of Playwright's registry that run in Chromium", () => {
    expect(chromiumDeviceNames()).toEqual(expect.arrayContaining([...suggestedDevices]));
    for (const name of suggestedDevices) expect(deviceProblem(name)).toBeNull();
  });

  it('an unknown device, and a device of a browser this service does not run', async () => {
    const unknown = await trigger({ device: 'Nokia 3310' });
    expect(unknown.statusCode, unknown.body).toBe(400);
    expect(unknown.json()).toEqual({
      code: 'DEVICE_NOT_AVAILABLE',
      message: 'device "Nokia 3310" is not a known device; e.g. "Pixel 7", "Galaxy S9+", "Desktop Chrome"',
    });
    const webkit = await trigger({ device: 'iPhone 14' });
    expect(webkit.statusCode).toBe(400);
    expect(webkit.json().message).toBe(
      'device "iPhone 14" runs in webkit, which this service does not run; choose a Chromium device, e.g. "Pixel 7", "Galaxy S9+", "Desktop Chrome"',
    );
    const bulk = await t.api({
      method: 'POST',
      url: '/v1/tests/remote-run',
      payload: { testIds: [testId], config: { device: 'Nokia 3310' } },
    });
    expect(bulk.statusCode).toBe(400);
    expect(bulk.json().code).toBe('DEVICE_NOT_AVAILABLE');
    const runs = await t.api({ method: 'GET', url: '/v1/test-runs' });
    expect(runs.json().data).toEqual([]);
  });

  it('a time zone, a permission and a plain-text password in the words of the field', async () => {
    const zone = await trigger({ timezoneId: 'Mars/Olympus_Mons' });
    expect(zone.statusCode, zone.body).toBe(400);
    expect(zone.json().message).toContain(
      'timezoneId "Mars/Olympus_Mons" is not a known time zone; e.g. "Europe/Berlin", "America/New_York", "UTC"',
    );
    const permission = await trigger({ permissions: ['telepathy'] });
    expect(permission.statusCode).toBe(400);
    expect(permission.json().message).toContain('permission "telepathy" is not one Playwright grants');
    const password = await trigger({ httpCredentials: { username: 'ada', password: 'hunter2' } });
    expect(password.statusCode).toBe(400);
    expect(password.json().message).toContain(
      'httpCredentials.password must be a secret reference such as "{{secrets.BASIC_AUTH_PASSWORD}}", never the password itself',
    );
    expect(password.body).not.toContain('hunter2');
  });

  it('a saved test naming an unknown device is refused; a known Chromium one is kept', async () => {
    const save = async (config: Record<string, unknown>) => {
      const form = await multipart({ testData: JSON.stringify({ config }) });
      return t.api({
        method: 'PUT',
        url: `/v1/tests/${testId}`,
        payload: form.payload,
        headers: form.headers,
      });
    };
    const refused = await save({ device: 'Nokia 3310' });
    expect(refused.statusCode, refused.body).toBe(400);
    expect(refused.json().code).toBe('DEVICE_NOT_AVAILABLE');
    const kept = await save({ device: 'Pixel 7', locale: 'de-DE', timezoneId: 'Europe/Berlin' });
    expect(kept.statusCode, kept.body).toBe(200);
    const detail = await t.api({ method: 'GET', url: `/v1/tests/${testId}` });
    expect(detail.json().test.config).toMatchObject({
      device: 'Pixel 7',
      locale: 'de-DE',
      timezoneId: 'Europe/Berlin',
    });
  });
});
