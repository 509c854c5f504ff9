import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/adapters/db/index.ts';
import { type BuiltApp, buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { consoleCsrf, login } from '../helper.ts';

describe('logs', () => {
  const lines: string[] = [];
  let built: BuiltApp;
  let dataDir: string;
  let closeDatabase: () => Promise<void>;
  const password = 'log-test-password';

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-logs-'));
    // The most verbose level: if a secret were ever logged, it would be here.
    const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'trace', ADMIN_PASSWORD: password });
    const database = await openDatabase({ dataDir: config.dataDir });
    closeDatabase = database.close;
    built = await buildApp({
      config,
      database,
      background: false,
      logStream: { write: (line: string) => void lines.push(line) },
    });
    await built.app.ready();
  });
  afterAll(async () => {
    await built?.app.close();
    await closeDatabase?.();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('never contain an API key, a password or a session cookie', async () => {
    const { app } = built;
    const bootstrap = built.bootstrap;
    if (!bootstrap) throw new Error('expected a first start');

    // Sign in (password in the body; token in Set-Cookie), also with a malformed body and a wrong password.
    const cookie = await login(app, 'admin@localhost', password);
    const token = cookie.split('=')[1] as string;
    await app.inject({
      method: 'POST',
      url: '/console/v1/session',
      headers: { 'content-type': 'application/json' },
      payload: `{"email":"admin@localhost","password":"${password}"`,
    });
    await app.inject({
      method: 'POST',
      url: '/console/v1/session',
      payload: { email: 'admin@localhost', password: `${password}-wrong` },
    });

    // Create a key (its value is in the response), add a user with a password.
    const created = await app.inject({
      method: 'POST',
      url: '/console/v1/api-keys',
      headers: { cookie, ...consoleCsrf },
      payload: { name: 'logged?', scopes: ['tests:read'] },
    });
    expect(created.statusCode).toBe(201);
    const newKey = created.json().data.key as string;
    const userPassword = 'another-secret-password';
    await app.inject({
      method: 'POST',
      url: '/console/v1/users',
      headers: { cookie, ...consoleCsrf },
      payload: { email: 'dev@example.com', password: userPassword, role: 'member' },
    });
    const orgPassword = 'org-owner-secret';
    await app.inject({
      method: 'POST',
      url: '/console/v1/organizations',
      headers: { cookie, ...consoleCsrf },
      payload: { name: 'Other', ownerEmail: 'other@example.com', ownerPassword: orgPassword },
    });

    // Keys in headers: valid, unknown, on console routes, with and without a project, on unknown routes.
    const requests = [
      {
        method: 'GET',
        url: '/v1/tests',
        headers: { 'x-api-key': bootstrap.apiKey, 'x-project-id': bootstrap.projectId },
      },
      { method: 'GET', url: '/v1/test-runs', headers: { 'x-api-key': newKey, 'x-project-id': 'not-a-uuid' } },
      { method: 'GET', url: '/v1/email-inboxes', headers: { 'x-api-key': newKey } },
      { method: 'GET', url: '/v1/tests', headers: { 'x-api-key': `${bootstrap.apiKey.slice(0, -1)}0` } },
      { method: 'GET', url: '/console/v1/api-keys', headers: { 'x-api-key': bootstrap.apiKey } },
      { method: 'GET', url: '/console/v1/api-keys', headers: { cookie } },
      { method: 'GET', url: '/nowhere', headers: { 'x-api-key': bootstrap.apiKey, cookie } },
      { method: 'GET', url: '/v1/tests', headers: { authorization: `Bearer ${newKey}` } },
    ] as const;
    for (const request of requests) await app.inject({ ...request, headers: { ...request.headers } });
    await app.inject({ method: 'DELETE', url: '/console/v1/session', headers: { cookie, ...consoleCsrf } });

    const logs = lines.join('');
    // The capture is real: requests were logged with their URLs.
    expect(logs).toContain('/console/v1/session');
    expect(logs).toContain('/v1/email-inboxes');
    expect(logs).toContain('incoming request');
    for (const secret of [bootstrap.apiKey, newKey, password, userPassword, orgPassword, token]) {
      expect(logs).not.toContain(secret);
    }
    // Not even the 8-character key prefix plus more of the key leaks: no `sd_` + 48 hex anywhere.
    expect(logs).not.toMatch(/sd_[0-9a-f]{48}/);
  });
});
