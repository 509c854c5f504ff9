import { createCipheriv, randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backupDataDir, restoreDataDir } from '../src/backup.ts';
import { StartupError } from '../src/config.ts';
import { effectiveInstallSettings } from '../src/modules/install-settings/public.ts';
import { loadProjectSecrets } from '../src/modules/tests/public.ts';
import { keyIdOf } from '../src/secret-box.ts';
import { sweepBatchSize } from '../src/secret-sweep.ts';
import { consoleCall, createPostgresDatabase, createTestApp, databaseKinds, type TestApp } from './helper.ts';
import { allArtifactFiles } from './modules/runs/artifacts.ts';
import { createTest, type Site, startSite, waitForStatus } from './modules/runs/helpers.ts';

const keyA = randomBytes(32);
const keyB = randomBytes(32);
const withKey = (current: Buffer, previous?: Buffer) => ({
  SECRET_ENCRYPTION_KEY: current.toString('base64'),
  ...(previous ? { SECRET_ENCRYPTION_KEY_PREVIOUS: previous.toString('hex') } : {}),
});

/**
 * Project and environment secrets sealed at rest under `SECRET_ENCRYPTION_KEY`: the database
 * read raw (rows, and SQLite's files byte by byte) after a run used them; values stored in
 * clear before, sealed at start-up; rotation with `SECRET_ENCRYPTION_KEY_PREVIOUS`; a key that
 * does not open them stops the start. One install restarted on the same data throughout.
 */
describe.each(databaseKinds)('secrets sealed at rest on %s', (database) => {
  const projectSecret = 'Pr0ject s3cret/"value"&1';
  const environmentSecret = 'Env1ronment s3cret+Zq';
  const oldPlain = 'stored-in-clear-before-sealing';
  let dataDir: string;
  let databaseUrl: string | undefined;
  let drop: (() => Promise<void>) | undefined;
  let site: Site;
  let projectId: string;
  let bootstrap: TestApp['bootstrap'];

  const start = (env: Record<string, string>, background = false) =>
    createTestApp({
      database,
      dataDir,
      databaseUrl,
      env: { RATE_LIMIT_PER_MINUTE: '100000', ...env },
      background,
    });

  /** Every stored secret value, read past the service. */
  async function rawValues(): Promise<string[]> {
    const query = 'select "value" from "projectSecrets" union all select "value" from "environmentSecrets"';
    if (database === 'sqlite') {
      const file = new SqliteDatabase(path.join(dataDir, 'stepdeck.sqlite'), { readonly: true });
      try {
        return (file.prepare(query).all() as Array<{ value: string }>).map((row) => row.value);
      } finally {
        file.close();
      }
    }
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      return (await client.query<{ value: string }>(query)).rows.map((row) => row.value);
    } finally {
      await client.end();
    }
  }

  /** The file PostgreSQL keeps the project secrets in (a rewrite gives it a new one); null on SQLite. */
  async function filenode(): Promise<string | null> {
    if (database === 'sqlite') return null;
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const result = await client.query<{ node: string }>(
        `select pg_relation_filenode('"projectSecrets"')::text as node`,
      );
      return result.rows[0]?.node ?? null;
    } finally {
      await client.end();
    }
  }

  /** The SQLite database and its write-ahead log as bytes (nothing on PostgreSQL). */
  const rawFiles = () =>
    database === 'sqlite'
      ? fs
          .readdirSync(dataDir)
          .filter((name) => name.startsWith('stepdeck.sqlite'))
          .map((name) => fs.readFileSync(path.join(dataDir, name)).toString('latin1'))
          .join('\n')
      : '';

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-sealed-'));
    if (database === 'postgres') {
      const created = await createPostgresDatabase();
      databaseUrl = created.url;
      drop = created.drop;
    }
    site = await startSite();
  });
  afterAll(async () => {
    await site?.close();
    await drop?.();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('seals what the API stores; a run still resolves the secrets and redacts them', async () => {
    const t = await start(withKey(keyA), true);
    try {
      projectId = t.bootstrap.projectId;
      bootstrap = t.bootstrap;
      const cookie = await t.consoleCookie();
      const put = await consoleCall(t.app, cookie, {
        method: 'POST',
        url: `/console/v1/projects/${projectId}/secrets`,
        payload: { name: 'TOKEN', value: projectSecret },
      });
      expect(put.statusCode, put.body).toBe(201);
      const environment = await consoleCall(t.app, cookie, {
        method: 'POST',
        url: `/console/v1/projects/${projectId}/environments`,
        payload: { name: 'staging', baseURL: site.url, secrets: { PASSWORD: environmentSecret } },
      });
      expect(environment.statusCode, environment.body).toBe(201);

      const testId = await createTest(t, {
        name: 'sends both secrets',
        metadata: { type: 'api' },
        steps: [
          {
            name: 'call',
            action: {
              name: 'request',
              method: 'GET',
              url: '/status?code=200&sealed=1',
              headers: { 'x-token': '{{secrets.TOKEN}}', 'x-password': '{{secrets.PASSWORD}}' },
            },
          },
          { name: 'status', action: { name: 'assertStatus', value: 200 } },
        ],
      });
      const run = await t.api({
        method: 'POST',
        url: `/v1/tests/${testId}/remote-run`,
        payload: { environment: 'staging' },
      });
      expect(run.statusCode, run.body).toBe(200);
      const runId = run.json().data.runId as string;
      const finished = await waitForStatus(t, runId, ['completed', 'failed']);
      expect(finished.status, JSON.stringify(finished.runnerError)).toBe('completed');
      // Opened for the run: the site received both values.
      const received = site.headers.get('/status?code=200&sealed=1');
      expect([received?.['x-token'], received?.['x-password']]).toEqual([projectSecret, environmentSecret]);
      // And kept out of what the run stored.
      const files = await allArtifactFiles(t, runId);
      expect(files.length).toBeGreaterThan(0);
      for (const file of files)
        for (const secret of [projectSecret, environmentSecret])
          expect(file.data.toString('latin1').includes(secret), `${secret} in ${file.name}`).toBe(false);
    } finally {
      await t.close();
    }

    const values = await rawValues();
    expect(values).toHaveLength(2);
    for (const value of values) expect(value.startsWith(`sdbox:v1:${keyIdOf(keyA)}:`), value).toBe(true);
    const everything = `${values.join('\n')}\n${rawFiles()}`;
    for (const secret of [projectSecret, environmentSecret]) expect(everything).not.toContain(secret);
    if (database === 'sqlite') expect(rawFiles()).toContain('sdbox:v1:');
  }, 120_000);

  it('seals values stored in clear before, at start-up, in batches; a second start changes nothing', async () => {
    // What an install that stored secrets in clear left behind: more rows than one batch.
    const names = Array.from({ length: sweepBatchSize * 2 + 50 }, (_, index) => `OLD_${index}`);
    const insert = 'insert into "projectSecrets" ("projectId", "name", "value", "createdAt", "updatedAt")';
    const now = new Date().toISOString();
    if (database === 'sqlite') {
      const file = new SqliteDatabase(path.join(dataDir, 'stepdeck.sqlite'));
      const statement = file.prepare(`${insert} values (?, ?, ?, ?, ?)`);
      file.transaction(() => {
        for (const name of names) statement.run(projectId, name, `${oldPlain}-${name}`, now, now);
      })();
      file.close();
    } else {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      for (const name of names)
        await client.query(`${insert} values ($1, $2, $3, $4, $5)`, [
          projectId,
          name,
          `${oldPlain}-${name}`,
          now,
          now,
        ]);
      await client.end();
    }
    expect((await rawValues()).filter((value) => value.startsWith(oldPlain))).toHaveLength(names.length);
    const filenodeBefore = await filenode();

    const t = await start(withKey(keyA));
    try {
      const secrets = await loadProjectSecrets(t.ctx.db, projectId);
      expect(secrets.TOKEN).toBe(projectSecret);
      expect(secrets.OLD_0).toBe(`${oldPlain}-OLD_0`);
      expect(secrets[`OLD_${names.length - 1}`]).toBe(`${oldPlain}-OLD_${names.length - 1}`);
    } finally {
      await t.close();
    }
    const sealed = await rawValues();
    expect(sealed).toHaveLength(names.length + 2);
    // Nor do the values replaced stay behind in SQLite's free pages or its log, or in
    // PostgreSQL's dead row versions: the table was rewritten (a new file), once.
    expect(rawFiles()).not.toContain(oldPlain);
    const filenodeAfter = await filenode();
    if (database === 'postgres') expect(filenodeAfter).not.toBe(filenodeBefore);
    for (const value of sealed) expect(value.startsWith(`sdbox:v1:${keyIdOf(keyA)}:`)).toBe(true);

    await (await start(withKey(keyA))).close();
    expect((await rawValues()).sort()).toEqual([...sealed].sort());
    expect(await filenode()).toBe(filenodeAfter);
  }, 120_000);

  it('rotates: values under SECRET_ENCRYPTION_KEY_PREVIOUS are re-sealed under the new key', async () => {
    const t = await start(withKey(keyB, keyA));
    await t.close();
    const values = await rawValues();
    for (const value of values) expect(value.startsWith(`sdbox:v1:${keyIdOf(keyB)}:`)).toBe(true);
    // The new key alone now opens everything.
    const after = await start(withKey(keyB));
    try {
      expect((await loadProjectSecrets(after.ctx.db, projectId)).TOKEN).toBe(projectSecret);
    } finally {
      await after.close();
    }
  });

  it('a key that does not open the stored secrets stops the start with one line naming SECRET_ENCRYPTION_KEY', async () => {
    for (const env of [withKey(keyA), {}]) {
      const refused = await start(env).then(
        async (t) => {
          await t.close();
          return undefined;
        },
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(StartupError);
      const message = (refused as Error).message;
      expect(message).toContain('SECRET_ENCRYPTION_KEY');
      expect(message).toContain(keyIdOf(keyB));
      expect(message).not.toContain('\n');
      for (const key of [keyA, keyB])
        for (const form of [key.toString('base64'), key.toString('hex')]) expect(message).not.toContain(form);
    }
    // Nothing was changed by the refused starts.
    for (const value of await rawValues()) expect(value.startsWith(`sdbox:v1:${keyIdOf(keyB)}:`)).toBe(true);
  });

  // Backups copy the embedded database (backup.ts): SQLite only.
  if (database === 'sqlite')
    it('a backup holds sealed values: restored with the same key it works, with another it names the key', async () => {
      const backup = path.join(os.tmpdir(), `stepdeck-sealed-backup-${randomUUID()}`);
      const restored = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-sealed-restored-'));
      try {
        await backupDataDir(dataDir, backup);
        const copy = fs.readFileSync(path.join(backup, 'stepdeck.sqlite')).toString('latin1');
        expect(copy).toContain(`sdbox:v1:${keyIdOf(keyB)}:`);
        for (const secret of [projectSecret, environmentSecret, oldPlain]) expect(copy).not.toContain(secret);
        await restoreDataDir(backup, restored);
        const other = await createTestApp({ dataDir: restored, env: withKey(keyA), bootstrap }).catch(
          (error: unknown) => error,
        );
        expect(other).toBeInstanceOf(StartupError);
        expect((other as Error).message).toMatch(/SECRET_ENCRYPTION_KEY/);
        const same = await createTestApp({ dataDir: restored, env: withKey(keyB), bootstrap });
        try {
          expect((await loadProjectSecrets(same.ctx.db, projectId)).TOKEN).toBe(projectSecret);
        } finally {
          await same.close();
        }
      } finally {
        fs.rmSync(backup, { recursive: true, force: true });
        fs.rmSync(restored, { recursive: true, force: true });
      }
    });
});

describe('from the key in the database to SECRET_ENCRYPTION_KEY', () => {
  it('re-seals what the database key sealed, and warns in production while the key is in the database', async () => {
    const lines: string[] = [];
    const first = await createTestApp({
      env: { NODE_ENV: 'production', LOG_LEVEL: 'warn' },
      logStream: { write: (line) => void lines.push(line) },
    });
    const dataDir = first.dataDir;
    const cookie = await first.consoleCookie();
    await consoleCall(first.app, cookie, {
      method: 'POST',
      url: `/console/v1/projects/${first.bootstrap.projectId}/secrets`,
      payload: { name: 'TOKEN', value: 'sealed-under-the-database-key' },
    });
    const relay = await consoleCall(first.app, cookie, {
      method: 'PUT',
      url: '/console/v1/install/settings',
      payload: {
        smtpRelay: {
          host: 'smtp.example.com',
          port: 587,
          security: 'starttls',
          user: 'alerts',
          password: 'relay-password-under-the-database-key',
          from: 'stepdeck@example.com',
        },
      },
    });
    expect(relay.statusCode, relay.body).toBe(200);
    // As the version before key ids sealed it: `v1:<iv>:<tag>:<ciphertext>` under the settings key.
    const settingsKey = await first.ctx.db
      .selectFrom('settings')
      .select('value')
      .where('key', '=', 'secretEncryptionKey')
      .executeTakeFirstOrThrow();
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', Buffer.from(settingsKey.value, 'base64'), iv);
    const sealed = Buffer.concat([cipher.update('relay-password-under-the-database-key'), cipher.final()]);
    const legacy = `v1:${[iv, cipher.getAuthTag(), sealed].map((part) => part.toString('base64')).join(':')}`;
    const relayRow = await first.ctx.db
      .selectFrom('installSettings')
      .select('value')
      .where('key', '=', 'smtpRelay')
      .executeTakeFirstOrThrow();
    await first.ctx.db
      .updateTable('installSettings')
      .set({ value: JSON.stringify({ ...JSON.parse(relayRow.value), passwordSealed: legacy }) })
      .where('key', '=', 'smtpRelay')
      .execute();
    const projectId = first.bootstrap.projectId;
    await first.app.close();
    await first.ctx.database.close();
    const warnings = lines.filter((line) => line.includes('sealed with a key stored in the database'));
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0] as string).level).toBe(40);

    const quiet: string[] = [];
    const moved = await createTestApp({
      dataDir,
      env: { ...withKey(keyA), NODE_ENV: 'production', LOG_LEVEL: 'info' },
      logStream: { write: (line) => void quiet.push(line) },
    });
    try {
      const row = await moved.ctx.db
        .selectFrom('projectSecrets')
        .select('value')
        .where('projectId', '=', projectId)
        .executeTakeFirstOrThrow();
      expect(row.value.startsWith(`sdbox:v1:${keyIdOf(keyA)}:`)).toBe(true);
      expect((await loadProjectSecrets(moved.ctx.db, projectId)).TOKEN).toBe('sealed-under-the-database-key');
      const relaySetting = await moved.ctx.db
        .selectFrom('installSettings')
        .select('value')
        .where('key', '=', 'smtpRelay')
        .executeTakeFirstOrThrow();
      const passwordSealed = JSON.parse(relaySetting.value).passwordSealed as string;
      expect(passwordSealed.startsWith(`sdbox:v1:${keyIdOf(keyA)}:`)).toBe(true);
      expect((await effectiveInstallSettings(moved.ctx.db)).smtpRelay?.password).toBe(
        'relay-password-under-the-database-key',
      );
      expect(quiet.join('\n')).not.toContain('key stored in the database');
      // The key is never logged, in any form.
      for (const form of [keyA.toString('base64'), keyA.toString('hex')])
        expect(quiet.join('\n')).not.toContain(form);
    } finally {
      await moved.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
