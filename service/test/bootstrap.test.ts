import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { allScopes } from '@stepdeck/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createPostgresDatabase, type DatabaseKind, databaseKinds, login } from './helper.ts';

const tempDirs: string[] = [];
const newDataDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-bootstrap-'));
  tempDirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** Builds the real app the way server.ts does (it opens and closes its own database). */
async function start(env: Record<string, string>) {
  const config = loadConfig({ PORT: '0', LOG_LEVEL: 'silent', ...env });
  const built = await buildApp({ config, logger: false, background: false });
  await built.app.ready();
  return built;
}

async function countRows(app: Awaited<ReturnType<typeof start>>) {
  const { db } = app.ctx;
  const count = async (table: 'organizations' | 'users' | 'projects' | 'branches' | 'apiKeys' | 'install') =>
    Number((await db.selectFrom(table).select(db.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  return {
    organizations: await count('organizations'),
    users: await count('users'),
    projects: await count('projects'),
    branches: await count('branches'),
    apiKeys: await count('apiKeys'),
    install: await count('install'),
  };
}

describe.each(databaseKinds)('bootstrap on %s', (database: DatabaseKind) => {
  let databaseUrl: string | undefined;
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    if (database === 'postgres') {
      const created = await createPostgresDatabase();
      databaseUrl = created.url;
      drop = created.drop;
    }
  });
  afterAll(async () => drop?.());

  const dbEnv = (): Record<string, string> => (databaseUrl ? { DATABASE_URL: databaseUrl } : {});

  it('sets up once, writes bootstrap.json (0600), and a restart creates nothing new', async () => {
    const dataDir = newDataDir();
    const first = await start({ DATA_DIR: dataDir, ADMIN_PASSWORD: 'chosen-password', ...dbEnv() });
    const info = first.bootstrap;
    expect(info).toBeDefined();
    if (!info) return;

    const file = path.join(dataDir, 'bootstrap.json');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    // Written aside and renamed into place (never read half-written): nothing else is left.
    expect(fs.readdirSync(dataDir).filter((name) => name.includes('bootstrap'))).toEqual(['bootstrap.json']);
    const written = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(Object.keys(written).sort()).toEqual(
      ['adminEmail', 'adminPassword', 'apiKey', 'baseUrl', 'branchId', 'organizationId', 'projectId'].sort(),
    );
    expect(written).toEqual(info);
    expect(written.adminEmail).toBe('admin@localhost');
    expect(written.adminPassword).toBe('chosen-password');
    expect(written.apiKey).toMatch(/^sd_[0-9a-f]{48}$/);
    expect(written.baseUrl).toBe(first.ctx.config.publicUrl);

    // The written values are real: the owner signs in with the chosen password and sees the
    // Default project on branch main and one `bootstrap` key holding every scope.
    const cookie = await login(first.app, 'admin@localhost', 'chosen-password');
    // Once the admin signed in, the credentials no longer lie around on disk.
    expect(fs.existsSync(file)).toBe(false);
    const keys = await first.app.inject({ method: 'GET', url: '/console/v1/api-keys', headers: { cookie } });
    expect(keys.json().data).toEqual([
      expect.objectContaining({ name: 'bootstrap', prefix: info.apiKey.slice(0, 8), scopes: [...allScopes] }),
    ]);
    const projects = await first.app.inject({
      method: 'GET',
      url: '/console/v1/projects',
      headers: { cookie },
    });
    expect(projects.json().data).toEqual([
      expect.objectContaining({ id: info.projectId, name: 'Default', defaultBranchId: info.branchId }),
    ]);
    const branches = await first.app.inject({
      method: 'GET',
      url: `/console/v1/projects/${info.projectId}/branches`,
      headers: { cookie },
    });
    expect(branches.json().data).toEqual([expect.objectContaining({ id: info.branchId, name: 'main' })]);
    const org = await first.app.inject({
      method: 'GET',
      url: '/console/v1/organization',
      headers: { cookie },
    });
    expect(org.json().data).toMatchObject({ id: info.organizationId, subscriptionActive: true });

    const before = await countRows(first);
    expect(before).toEqual({ organizations: 1, users: 1, projects: 1, branches: 1, apiKeys: 1, install: 1 });
    await first.app.close();

    // Second start on the same data (a different ADMIN_PASSWORD changes nothing either).
    const second = await start({ DATA_DIR: dataDir, ADMIN_PASSWORD: 'another-password', ...dbEnv() });
    expect(second.bootstrap).toBeUndefined();
    expect(await countRows(second)).toEqual(before);
    expect(fs.existsSync(file)).toBe(false);
    // The first start's credentials still work; the new password was not applied.
    await expect(login(second.app, 'admin@localhost', 'chosen-password')).resolves.toMatch(
      /^stepdeck_session=/,
    );
    await expect(login(second.app, 'admin@localhost', 'another-password')).rejects.toThrow(/401/);
    await second.app.close();
  });

  it('generates an admin password when ADMIN_PASSWORD is unset', async () => {
    if (database === 'postgres') {
      // A fresh database for this case: the one above is already bootstrapped.
      const fresh = await createPostgresDatabase();
      try {
        const app = await start({ DATA_DIR: newDataDir(), DATABASE_URL: fresh.url });
        expect(app.bootstrap?.adminPassword).toMatch(/^[A-Za-z0-9_-]{16}$/);
        await expect(
          login(app.app, 'admin@localhost', app.bootstrap?.adminPassword ?? ''),
        ).resolves.toBeTruthy();
        await app.app.close();
      } finally {
        await fresh.drop();
      }
      return;
    }
    const app = await start({ DATA_DIR: newDataDir() });
    const password = app.bootstrap?.adminPassword ?? '';
    expect(password).toMatch(/^[A-Za-z0-9_-]{16}$/);
    await expect(login(app.app, 'admin@localhost', password)).resolves.toBeTruthy();
    await app.app.close();
  });

  it("gives the first organization the install's runner slots as its concurrency cap", async () => {
    // A fresh database for this case on PostgreSQL: the one above is already bootstrapped.
    const fresh = database === 'postgres' ? await createPostgresDatabase() : undefined;
    try {
      const built = await start({
        DATA_DIR: newDataDir(),
        ADMIN_PASSWORD: 'chosen-password',
        RUNNER_SLOTS: '3',
        ...(fresh ? { DATABASE_URL: fresh.url } : {}),
      });
      const cookie = await login(built.app, 'admin@localhost', 'chosen-password');
      const organization = await built.app.inject({
        method: 'GET',
        url: '/console/v1/organization',
        headers: { cookie },
      });
      expect(organization.json().data.concurrencyCap).toBe(3);
      await built.app.close();
    } finally {
      await fresh?.drop();
    }
  });

  it('answers GET /healthz with 200 once ready', async () => {
    const app = await start({ DATA_DIR: newDataDir(), ...dbEnv() });
    const response = await app.app.inject({ method: 'GET', url: '/healthz' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok' });
    await app.app.close();
  });
});

describe('bootstrap on a shared PostgreSQL database', () => {
  it('happens once when several instances with their own DATA_DIR start together', async () => {
    const { url, drop } = await createPostgresDatabase();
    try {
      const dirs = [newDataDir(), newDataDir(), newDataDir()];
      const apps = await Promise.all(dirs.map((dir) => start({ DATA_DIR: dir, DATABASE_URL: url })));
      const bootstrapped = apps.filter((app) => app.bootstrap !== undefined);
      expect(bootstrapped).toHaveLength(1);
      expect(dirs.filter((dir) => fs.existsSync(path.join(dir, 'bootstrap.json')))).toHaveLength(1);
      expect(await countRows(apps[0] as (typeof apps)[number])).toEqual({
        organizations: 1,
        users: 1,
        projects: 1,
        branches: 1,
        apiKeys: 1,
        install: 1,
      });
      for (const app of apps) await app.app.close();

      // A later instance on a fresh DATA_DIR reuses the database and writes no credentials.
      const later = newDataDir();
      const again = await start({ DATA_DIR: later, DATABASE_URL: url });
      expect(again.bootstrap).toBeUndefined();
      expect(fs.existsSync(path.join(later, 'bootstrap.json'))).toBe(false);
      await again.app.close();
    } finally {
      await drop();
    }
  });
});

describe('files of the embedded install', () => {
  it('creates the SQLite database 0600 and the blob folder 0700, and tightens ones made before', async () => {
    const dataDir = newDataDir();
    const first = await start({ DATA_DIR: dataDir });
    const mode = (file: string) => fs.statSync(path.join(dataDir, file)).mode & 0o777;
    expect(mode('stepdeck.sqlite')).toBe(0o600);
    expect(mode('blobs')).toBe(0o700);
    for (const companion of ['stepdeck.sqlite-wal', 'stepdeck.sqlite-shm'])
      if (fs.existsSync(path.join(dataDir, companion))) expect(mode(companion)).toBe(0o600);
    await first.app.close();

    // An install made by an older version: world-readable database and blob folder.
    fs.chmodSync(path.join(dataDir, 'stepdeck.sqlite'), 0o644);
    fs.chmodSync(path.join(dataDir, 'blobs'), 0o755);
    const second = await start({ DATA_DIR: dataDir });
    expect(mode('stepdeck.sqlite')).toBe(0o600);
    expect(mode('blobs')).toBe(0o700);
    await second.app.close();
  });
});
