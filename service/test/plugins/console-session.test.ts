import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerConsoleStatic } from '../../src/plugins/console-static.ts';
import { registerErrorHandling } from '../../src/plugins/errors.ts';
import { consoleCall, createTestApp, login, type TestApp } from '../helper.ts';
import { createTest } from '../modules/runs/helpers.ts';

describe('the console session on /v1', () => {
  let t: TestApp;
  let admin: string;
  let member: string;
  let testId: string;
  const csrf = { 'x-stepdeck-csrf': '1' };

  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.consoleCookie();
    const created = await consoleCall(t.app, admin, {
      method: 'POST',
      url: '/console/v1/users',
      payload: { email: 'member@example.com', password: 'member-password-1', role: 'member' },
    });
    expect(created.statusCode).toBe(201);
    member = await login(t.app, 'member@example.com', 'member-password-1');
    testId = await createTest(t, { name: 'session target', metadata: { type: 'api' }, steps: [] });
  });
  afterAll(() => t.close());

  const call = (cookie: string, method: 'GET' | 'POST', url: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method, url, headers: { cookie, 'x-project-id': t.bootstrap.projectId, ...headers } });

  it('says for every /v1 rule whether a session may call it, with a role', () => {
    const routeRules = Object.fromEntries(t.app.accessRules);
    const v1 = Object.entries(routeRules).filter(([key]) => key.split(' ')[1]?.startsWith('/v1/'));
    for (const [key, rule] of v1) {
      if (rule.kind !== 'apiKey') throw new Error(`${key} is not an API-key rule`);
      expect([undefined, 'member', 'admin']).toContain(rule.session);
    }
    expect(routeRules['GET /v1/test-runs/:runId']).toMatchObject({ session: 'member' });
    expect(routeRules['POST /v1/tests/:testId/remote-run']).toMatchObject({ session: 'member' });
    expect(routeRules['POST /v1/test-runs/:runId/cancel']).toMatchObject({ session: 'member' });
    expect(routeRules['POST /v1/tests']).toMatchObject({ session: 'admin' });
    expect(
      routeRules['GET /v1/email-inboxes']?.kind === 'apiKey' && routeRules['GET /v1/email-inboxes'].session,
    ).toBe(undefined);
  });

  it('lets members read with the project from x-project-id, and names the project errors as for keys', async () => {
    expect((await call(member, 'GET', '/v1/test-runs')).statusCode).toBe(200);
    const noProject = await t.app.inject({
      method: 'GET',
      url: '/v1/test-runs',
      headers: { cookie: member },
    });
    expect(noProject.statusCode).toBe(400);
    expect(noProject.json()).toEqual({ message: 'No active project', code: 'NO_ACTIVE_PROJECT' });
    const badProject = await call(member, 'GET', '/v1/test-runs', { 'x-project-id': 'nope' });
    // Any value that is not a project of the organization is the spec's 404, as for keys (#17).
    expect(badProject.statusCode).toBe(404);
    expect(badProject.json()).toEqual({ message: 'Project not found', code: 'PROJECT_NOT_FOUND' });
    const unknown = await call(member, 'GET', '/v1/test-runs', { 'x-project-id': crypto.randomUUID() });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ message: 'Project not found', code: 'PROJECT_NOT_FOUND' });
  });

  it('refuses a changing request without the CSRF header, and a member on an admin route', async () => {
    const noHeader = await call(admin, 'POST', `/v1/tests/${testId}/remote-run`);
    expect(noHeader.statusCode).toBe(403);
    expect(noHeader.json().message).toMatch(/x-stepdeck-csrf/);
    const memberCreates = await t.app.inject({
      method: 'POST',
      url: '/v1/tests/bulk-update-status',
      headers: { cookie: member, 'x-project-id': t.bootstrap.projectId, ...csrf },
      payload: { testIds: [testId], status: 'draft' },
    });
    expect(memberCreates.statusCode).toBe(403);
    expect(memberCreates.json()).toEqual({
      message: 'This action needs an admin or owner role',
      code: 'ADMIN_ROLE_REQUIRED',
    });
  });

  it('refuses a cookie-authenticated /console/v1 change without the CSRF header, for every changing method', async () => {
    const refused = [
      { method: 'POST', url: '/console/v1/tags', payload: { name: 'csrf-refused' } },
      { method: 'PUT', url: '/console/v1/organization/limits', payload: { concurrencyCap: 3 } },
      { method: 'DELETE', url: `/console/v1/tags/${crypto.randomUUID()}` },
      { method: 'DELETE', url: '/console/v1/session' },
    ] as const;
    for (const request of refused) {
      const response = await t.app.inject({ ...request, headers: { cookie: admin } });
      expect(response.statusCode, `${request.method} ${request.url}`).toBe(403);
      expect(response.json()).toEqual({
        message:
          'Cross-site request refused: a console request that changes data needs the x-stepdeck-csrf header',
        code: 'CSRF_HEADER_REQUIRED',
      });
    }
    // Nothing was written, and the session survived its refused sign-out.
    const tags = await consoleCall(t.app, admin, { method: 'GET', url: '/console/v1/tags' });
    expect(tags.statusCode).toBe(200);
    expect(tags.json().data.map((tag: { name: string }) => tag.name)).not.toContain('csrf-refused');
    const organization = await consoleCall(t.app, admin, { method: 'GET', url: '/console/v1/organization' });
    expect(organization.json().data.concurrencyCap).not.toBe(3);
    // Reads need no header.
    const read = await t.app.inject({ method: 'GET', url: '/console/v1/tags', headers: { cookie: admin } });
    expect(read.statusCode).toBe(200);
    // With the header the same change goes through.
    const created = await t.app.inject({
      method: 'POST',
      url: '/console/v1/tags',
      headers: { cookie: admin, ...csrf },
      payload: { name: 'csrf-accepted' },
    });
    expect(created.statusCode).toBe(201);
    // A missing session is still a 401 first, and the role check still follows the CSRF check.
    const signedOut = await t.app.inject({ method: 'POST', url: '/console/v1/tags', payload: { name: 'x' } });
    expect(signedOut.statusCode).toBe(401);
    const memberWithHeader = await t.app.inject({
      method: 'POST',
      url: '/console/v1/tags',
      headers: { cookie: member, ...csrf },
      payload: { name: 'member-tag' },
    });
    expect(memberWithHeader.statusCode).toBe(403);
    expect(memberWithHeader.json()).toEqual({
      message: 'This action needs an admin or owner role',
      code: 'ADMIN_ROLE_REQUIRED',
    });
    // API keys are unaffected: a key changes through /v1 with no CSRF header at all (and a
    // stray cookie beside the key changes nothing).
    // (Its own test: the spec's re-run cooldown would refuse the next case's run of `testId`.)
    const keyTarget = await createTest(t, { name: 'key csrf target', metadata: { type: 'api' }, steps: [] });
    const withKey = await t.api({
      method: 'POST',
      url: `/v1/tests/${keyTarget}/remote-run`,
      headers: { cookie: admin },
      payload: {},
    });
    expect(withKey.statusCode).toBe(200);
    const cancelled = await t.api({
      method: 'POST',
      url: `/v1/test-runs/${withKey.json().data.runId}/cancel`,
    });
    expect(cancelled.statusCode).toBe(200);
  });

  it("records a member's run as started by that user, and lets the member cancel it", async () => {
    const started = await call(member, 'POST', `/v1/tests/${testId}/remote-run`, csrf);
    expect(started.statusCode).toBe(200);
    const runId = started.json().data.runId as string;
    const run = await call(member, 'GET', `/v1/test-runs/${runId}`);
    expect(run.json().data.metadata.trigger).toEqual({ type: 'manual', name: 'member@example.com' });
    const cancelled = await call(member, 'POST', `/v1/test-runs/${runId}/cancel`, csrf);
    expect(cancelled.statusCode).toBe(200);
  });

  it('keeps routes without a session field key-only, and a key ignores any cookie', async () => {
    const inboxes = await t.app.inject({
      method: 'GET',
      url: '/v1/email-inboxes',
      headers: { cookie: admin },
    });
    expect(inboxes.statusCode).toBe(401);
    const withKey = await t.api({
      method: 'GET',
      url: '/v1/test-runs',
      headers: { cookie: 'stepdeck_session=x' },
    });
    expect(withKey.statusCode).toBe(200);
  });

  it('serves artifacts same-origin to the session of the run organization only', async () => {
    const artifactTest = await createTest(t, {
      name: 'artifact target',
      metadata: { type: 'api' },
      steps: [],
    });
    const started = await t.api({ method: 'POST', url: `/v1/tests/${artifactTest}/remote-run`, payload: {} });
    const runId = started.json().data.runId as string;
    await t.ctx.blobs.put(`runs/${runId}/tests/a b/trace.zip`, Buffer.from('zip bytes'));
    const url = `/console/v1/test-runs/${runId}/artifact?key=${encodeURIComponent('tests/a b/trace.zip')}`;
    const ok = await t.app.inject({ method: 'GET', url, headers: { cookie: member } });
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toBe('zip bytes');
    expect(ok.headers['content-type']).toBe('application/zip');
    expect((await t.app.inject({ method: 'GET', url })).statusCode).toBe(401);
    const missing = await t.app.inject({
      method: 'GET',
      url: `/console/v1/test-runs/${runId}/artifact?key=tests/none.zip`,
      headers: { cookie: member },
    });
    expect(missing.statusCode).toBe(404);
    const sneaky = await t.app.inject({
      method: 'GET',
      url: `/console/v1/test-runs/${runId}/artifact?key=..%2F..%2Fsecret`,
      headers: { cookie: member },
    });
    expect(sneaky.statusCode).toBe(400);
  });

  it('sets the session cookie SameSite=Strict', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/console/v1/session',
      payload: { email: 'member@example.com', password: 'member-password-1' },
    });
    expect(String(response.headers['set-cookie'])).toMatch(/SameSite=Strict/i);
  });
});

describe('serving the built console', () => {
  const dist = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-console-dist-'));
  const app = Fastify({ logger: false });

  beforeAll(async () => {
    fs.mkdirSync(path.join(dist, 'assets'));
    fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html><div id="root"></div>');
    fs.writeFileSync(path.join(dist, 'assets', 'index-abc123.js'), 'console.log(1)');
    fs.writeFileSync(
      path.join(dist, 'csp.json'),
      JSON.stringify({ scriptSrc: ["'sha256-AbC+/9=='", "'unsafe-inline'"] }),
    );
    app.setValidatorCompiler(validatorCompiler);
    app.setSerializerCompiler(serializerCompiler);
    registerErrorHandling(app);
    await registerConsoleStatic(app, { distDir: dist });
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    fs.rmSync(dist, { recursive: true, force: true });
  });

  it('redirects / to /console/', async () => {
    const response = await app.inject({ method: 'GET', url: '/' });
    expect(response.statusCode).toBe(302);
    expect(response.headers.location).toBe('/console/');
  });

  it('caches hashed assets for good and index.html never', async () => {
    const asset = await app.inject({ method: 'GET', url: '/console/assets/index-abc123.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const index = await app.inject({ method: 'GET', url: '/console/' });
    expect(index.headers['cache-control']).toBe('no-cache');
    expect(index.body).toContain('id="root"');
  });

  it("allows index.html's inline start-up script by the hash its build wrote, and nothing else inline", async () => {
    const index = await app.inject({ method: 'GET', url: '/console/projects/p/runs/r' });
    const csp = String(index.headers['content-security-policy']);
    const scriptSrc = csp.split(';').find((directive) => directive.startsWith('script-src '));
    // Only well-formed hashes from csp.json: its stray 'unsafe-inline' is dropped.
    expect(scriptSrc).toBe("script-src 'self' 'sha256-AbC+/9=='");
    expect(csp).toContain("frame-ancestors 'self'");
  });

  it('answers every console path with index.html except the console API', async () => {
    const deep = await app.inject({ method: 'GET', url: '/console/projects/p/runs/r?branch=b' });
    expect(deep.statusCode).toBe(200);
    expect(deep.headers['content-type']).toMatch(/text\/html/);
    const api = await app.inject({ method: 'GET', url: '/console/v1/nowhere' });
    expect(api.statusCode).toBe(404);
    expect(api.json()).toEqual({
      message: 'Route GET /console/v1/nowhere not found',
      code: 'ROUTE_NOT_FOUND',
    });
  });

  it("serves Playwright's trace viewer and its service worker under /console/trace/", async () => {
    const viewer = await app.inject({ method: 'GET', url: '/console/trace/index.html' });
    expect(viewer.statusCode).toBe(200);
    expect(viewer.body).toContain('Playwright Trace Viewer');
    const worker = await app.inject({ method: 'GET', url: '/console/trace/sw.bundle.js' });
    expect(worker.statusCode).toBe(200);
    expect(worker.headers['content-type']).toMatch(/javascript/);
  });
});
