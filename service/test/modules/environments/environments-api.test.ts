import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleCall, createTest, createTestApp, databaseKinds, login, type TestApp } from '../../helper.ts';

describe.each(databaseKinds)('environments on %s', (database) => {
  let t: TestApp;
  let admin: string;
  let member: string;
  const as = (cookie: string, inject: InjectOptions) => consoleCall(t.app, cookie, inject);
  const environments = () => `/console/v1/projects/${t.bootstrap.projectId}/environments`;

  beforeAll(async () => {
    t = await createTestApp({ database });
    admin = await t.consoleCookie();
    const created = await as(admin, {
      method: 'POST',
      url: '/console/v1/users',
      payload: { email: 'member@example.test', password: 'password-123', role: 'member' },
    });
    expect(created.statusCode, created.body).toBe(201);
    member = await login(t.app, 'member@example.test', 'password-123');
  });
  afterAll(async () => t?.close());

  it('creates, lists, edits and deletes an environment; secret values are never returned', async () => {
    const created = await as(admin, {
      method: 'POST',
      url: environments(),
      payload: {
        name: 'staging',
        baseURL: 'https://staging.example.test',
        variables: { GREETING: 'hello', region: 'eu' },
        secrets: { PASSWORD: 'hunter2-staging' },
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const environment = created.json().data;
    expect(environment).toMatchObject({
      name: 'staging',
      projectId: t.bootstrap.projectId,
      baseURL: 'https://staging.example.test',
      variables: { GREETING: 'hello', region: 'eu' },
      secrets: [{ name: 'PASSWORD' }],
    });
    expect(created.body).not.toContain('hunter2-staging');

    const list = await as(member, { method: 'GET', url: environments() });
    expect(list.statusCode).toBe(200);
    expect(list.json().data.map((e: { name: string }) => e.name)).toEqual(['staging']);
    expect(list.body).not.toContain('hunter2-staging');

    const edited = await as(admin, {
      method: 'PUT',
      url: `${environments()}/${environment.id}`,
      payload: {
        name: 'staging-eu',
        baseURL: null,
        variables: { GREETING: 'hi' },
        secrets: { PASSWORD: null, API_TOKEN: 'tok-1' },
      },
    });
    expect(edited.statusCode, edited.body).toBe(200);
    expect(edited.json().data).toMatchObject({
      name: 'staging-eu',
      baseURL: null,
      variables: { GREETING: 'hi' },
      secrets: [{ name: 'API_TOKEN' }],
    });
    const got = await as(member, { method: 'GET', url: `${environments()}/${environment.id}` });
    expect(got.json().data.name).toBe('staging-eu');

    // Secrets left out of an edit keep their value (only their names are listed).
    const kept = await as(admin, {
      method: 'PUT',
      url: `${environments()}/${environment.id}`,
      payload: { variables: {} },
    });
    expect(kept.json().data.secrets.map((s: { name: string }) => s.name)).toEqual(['API_TOKEN']);

    expect(
      (await as(admin, { method: 'DELETE', url: `${environments()}/${environment.id}` })).statusCode,
    ).toBe(200);
    const again = await as(admin, { method: 'DELETE', url: `${environments()}/${environment.id}` });
    expect(again.statusCode).toBe(404);
    expect(again.json().message).toBe('Environment not found');
  });

  it('refuses bad names, URLs and variables with a 400 naming the problem, and a duplicate name with 409', async () => {
    const refusals: Array<[Record<string, unknown>, RegExp]> = [
      [{ name: 'Staging' }, /environment must be 1 to 32 lowercase letters/],
      [{ name: '-x' }, /environment must be/],
      [{ name: 'a'.repeat(33) }, /environment must be/],
      [{ name: 'prod', baseURL: 'file:///etc/passwd' }, /baseURL must be an absolute http or https URL/],
      [{ name: 'prod', baseURL: 'javascript:alert(1)' }, /baseURL must be an absolute http or https URL/],
      [{ name: 'prod', baseURL: '/relative' }, /baseURL must be an absolute http or https URL/],
      [{ name: 'prod', variables: { '1bad': 'x' } }, /variable name "1bad" must be letters/],
      [{ name: 'prod', variables: { ok: 3 } }, /a variable value must be a string/],
      [{ name: 'prod', secrets: { 'bad-name': 'x' } }, /secret name "bad-name" must be letters/],
      [
        {
          name: 'prod',
          variables: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`V${i}`, 'x'])),
        },
        /at most 100 variables/,
      ],
    ];
    for (const [payload, message] of refusals) {
      const response = await as(admin, { method: 'POST', url: environments(), payload });
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json().message).toMatch(message);
    }
    expect((await as(admin, { method: 'GET', url: environments() })).json().data).toEqual([]);

    const first = await as(admin, { method: 'POST', url: environments(), payload: { name: 'production' } });
    expect(first.statusCode).toBe(201);
    const second = await as(admin, { method: 'POST', url: environments(), payload: { name: 'production' } });
    expect(second.statusCode).toBe(409);
    expect(second.json().message).toBe('An environment named "production" already exists in this project');
    const other = await as(admin, { method: 'POST', url: environments(), payload: { name: 'other' } });
    const renamed = await as(admin, {
      method: 'PUT',
      url: `${environments()}/${other.json().data.id}`,
      payload: { name: 'production' },
    });
    expect(renamed.statusCode).toBe(409);
  });

  it('lets members read but not change; API keys and other projects are refused', async () => {
    const read = await as(member, { method: 'GET', url: environments() });
    expect(read.statusCode).toBe(200);
    expect(read.json().data.length).toBeGreaterThan(0);
    for (const inject of [
      { method: 'POST', url: environments(), payload: { name: 'member-made' } },
      { method: 'PUT', url: `${environments()}/${read.json().data[0].id}`, payload: { name: 'renamed' } },
      { method: 'DELETE', url: `${environments()}/${read.json().data[0].id}` },
    ] as InjectOptions[]) {
      const refused = await as(member, inject);
      expect(refused.statusCode, `${inject.method}`).toBe(403);
      expect(refused.json().message).toBe('This action needs an admin or owner role');
    }
    const byKey = await t.api({ method: 'GET', url: environments() });
    expect(byKey.statusCode).toBeGreaterThanOrEqual(400);
    expect(byKey.statusCode).toBeLessThan(500);
    const unknownProject = await as(admin, {
      method: 'GET',
      url: '/console/v1/projects/00000000-0000-4000-8000-000000000000/environments',
    });
    expect(unknownProject.statusCode).toBe(404);
  });

  it('a run, a schedule and a preset naming an unknown environment get a 400 naming it', async () => {
    const testId = (await createTest(t, { name: 'env unknown' })).id;
    const run = await t.api({
      method: 'POST',
      url: `/v1/tests/${testId}/remote-run`,
      payload: { environment: 'nowhere' },
    });
    expect(run.statusCode).toBe(400);
    expect(run.json().message).toBe('environment: the project has no environment named "nowhere"');
    const schedule = await as(admin, {
      method: 'POST',
      url: '/console/v1/schedules',
      payload: {
        name: 'nightly',
        projectId: t.bootstrap.projectId,
        testIds: [testId],
        cron: '0 3 * * *',
        environment: 'nowhere',
      },
    });
    expect(schedule.statusCode).toBe(400);
    expect(schedule.json().message).toContain('"nowhere"');
    const preset = await as(admin, {
      method: 'POST',
      url: `/console/v1/projects/${t.bootstrap.projectId}/presets`,
      payload: { name: 'p', config: {}, environment: 'nowhere' },
    });
    expect(preset.statusCode).toBe(400);
    expect(preset.json().message).toContain('"nowhere"');
  });

  it('a run records the environment it picked, with its base URL under the run config', async () => {
    const picked = await as(admin, {
      method: 'POST',
      url: environments(),
      payload: { name: 'qa', baseURL: 'http://qa.example.test', variables: { X: '1' } },
    });
    expect(picked.statusCode, picked.body).toBe(201);
    const testId = (await createTest(t, { name: 'env recorded' })).id;
    const run = await t.api({
      method: 'POST',
      url: `/v1/tests/${testId}/remote-run`,
      payload: { environment: 'qa', config: { retries: 1 } },
    });
    expect(run.statusCode, run.body).toBe(200);
    const runId = run.json().data.runId as string;
    const detail = (await t.api({ method: 'GET', url: `/v1/test-runs/${runId}` })).json().data;
    expect(detail.environment).toBe('qa');
    expect(detail.config).toMatchObject({ retries: 1, use: { baseURL: 'http://qa.example.test' } });
    const listed = (await t.api({ method: 'GET', url: '/v1/test-runs' })).json().data as Array<{
      id: string;
      environment: string | null;
    }>;
    expect(listed.find((item) => item.id === runId)?.environment).toBe('qa');
  });
});
