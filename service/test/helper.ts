import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { openDatabase } from '../src/adapters/db/index.ts';
import { type BuildOptions, buildApp } from '../src/app.ts';
import type { BootstrapInfo } from '../src/bootstrap.ts';
import type { Clock } from '../src/clock.ts';
import { type Config, loadConfig } from '../src/config.ts';
import type { AppContext } from '../src/context.ts';

export type DatabaseKind = 'sqlite' | 'postgres';
/** Storage and auth suites run once per database: `describe.each(databaseKinds)`. */
/**
 * Routes that are WebSocket upgrades, not HTTP operations: @fastify/websocket leaves them out of
 * the OpenAPI document (docs/console.md describes the live browser's stream).
 */
export const webSocketRoutes = ['GET /console/v1/projects/:projectId/live-sessions/:sessionId/stream'];

export const databaseKinds: DatabaseKind[] = ['sqlite', 'postgres'];

export interface TestApp {
  app: FastifyInstance;
  ctx: AppContext;
  config: Config;
  bootstrap: BootstrapInfo;
  dataDir: string;
  databaseUrl: string | undefined;
  /** Headers of the bootstrap key on the default project. */
  headers: Record<string, string>;
  /** A console session cookie for admin@localhost. */
  consoleCookie(): Promise<string>;
  /** Injects with the bootstrap key and project unless overridden. */
  api(options: InjectOptions & { headers?: Record<string, string> }): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export async function createPostgresDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('TEST_DATABASE_URL is not set: the vitest global setup starts PostgreSQL');
  const name = `stepdeck_${randomUUID().replaceAll('-', '')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

export interface TestAppOptions {
  database?: DatabaseKind;
  env?: Record<string, string>;
  clock?: Clock;
  background?: boolean;
  /** Reuse an existing DATA_DIR / database (restart tests). */
  dataDir?: string;
  databaseUrl?: string;
  blobs?: BuildOptions['blobs'];
  /** Credentials of an install whose bootstrap.json is gone (a restored copy of another). */
  bootstrap?: BootstrapInfo;
  /** Called once the app is built, before it is ready (background work starts on ready). */
  beforeReady?: (ctx: AppContext) => void;
  /** Captures the app's log lines (set `LOG_LEVEL` in `env` too): tests check nothing secret is logged. */
  logStream?: { write(line: string): void };
}

/**
 * Bootstrap credentials by DATA_DIR: bootstrap.json is deleted at the admin's first sign-in,
 * so a restart on the same data (restart tests) takes them from here.
 */
const bootstrapByDataDir = new Map<string, BootstrapInfo>();

export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-test-'));
  let databaseUrl = options.databaseUrl;
  let dropDatabase: (() => Promise<void>) | undefined;
  if (options.database === 'postgres' && !databaseUrl) {
    const created = await createPostgresDatabase();
    databaseUrl = created.url;
    dropDatabase = created.drop;
  }
  const config = loadConfig({
    DATA_DIR: dataDir,
    PORT: '0',
    LOG_LEVEL: 'silent',
    ADMIN_PASSWORD: 'admin-password',
    // Background SMTP on a free port, so parallel test files never collide on 2525.
    SMTP_PORT: '0',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...options.env,
  });
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const built = await buildApp({
    config,
    database,
    clock: options.clock,
    background: options.background ?? false,
    blobs: options.blobs,
    ...(options.logStream ? { logStream: options.logStream } : { logger: false }),
  }).catch(async (error: unknown) => {
    // A refused start (a start-up error) leaves nothing open behind it.
    await database.close();
    if (dropDatabase) await dropDatabase();
    throw error;
  });
  options.beforeReady?.(built.ctx);
  await built.app.ready();
  const bootstrap =
    built.bootstrap ??
    options.bootstrap ??
    bootstrapByDataDir.get(dataDir) ??
    (JSON.parse(fs.readFileSync(path.join(dataDir, 'bootstrap.json'), 'utf8')) as BootstrapInfo);
  bootstrapByDataDir.set(dataDir, bootstrap);
  const headers = { 'x-api-key': bootstrap.apiKey, 'x-project-id': bootstrap.projectId };
  let cookie: string | undefined;
  return {
    app: built.app,
    ctx: built.ctx,
    config,
    bootstrap,
    dataDir,
    databaseUrl,
    headers,
    async consoleCookie() {
      cookie ??= await login(built.app, bootstrap.adminEmail, bootstrap.adminPassword);
      return cookie;
    },
    api(inject) {
      return built.app.inject({ ...inject, headers: { ...headers, ...inject.headers } });
    },
    async close() {
      await built.app.close();
      await database.close();
      if (dropDatabase) await dropDatabase();
      if (!options.dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function login(app: FastifyInstance, email: string, password: string): Promise<string> {
  const response = await app.inject({
    method: 'POST',
    url: '/console/v1/session',
    payload: { email, password },
  });
  if (response.statusCode !== 200) throw new Error(`login failed: ${response.statusCode} ${response.body}`);
  const setCookie = response.headers['set-cookie'];
  const first = Array.isArray(setCookie) ? setCookie[0] : setCookie;
  if (!first) throw new Error('login returned no cookie');
  return first.split(';')[0] as string;
}

/** The header the console sends with every request; cookie-authenticated changes need it. */
export const consoleCsrf = { 'x-stepdeck-csrf': '1' } as const;

/** Console call with a session cookie (and the console's CSRF header, as the console sends). */
export function consoleCall(app: FastifyInstance, cookie: string, inject: InjectOptions) {
  return app.inject({ ...inject, headers: { ...consoleCsrf, ...inject.headers, cookie } });
}

/** Creates an API key through the console and returns its full value. */
export async function createApiKey(t: TestApp, scopes: string[], name = 'test key'): Promise<string> {
  const response = await consoleCall(t.app, await t.consoleCookie(), {
    method: 'POST',
    url: '/console/v1/api-keys',
    payload: { name, scopes },
  });
  if (response.statusCode !== 201) throw new Error(`key creation failed: ${response.body}`);
  return response.json().data.key as string;
}

/** Builds a multipart body by hand-free means: FormData serialised through Request. */
export async function multipart(
  fields: Record<string, string>,
  files: Array<{ field?: string; filename: string; content: Buffer | string }> = [],
) {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) form.append(key, value);
  for (const file of files)
    form.append(
      file.field ?? 'files',
      new Blob([typeof file.content === 'string' ? file.content : new Uint8Array(file.content)]),
      file.filename,
    );
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  const body = Buffer.from(await request.arrayBuffer());
  return { payload: body, headers: { 'content-type': request.headers.get('content-type') as string } };
}

/** Creates a test through the real POST /v1/tests API (multipart); returns its id and parent. */
export async function createTest(
  t: TestApp,
  testData: Record<string, unknown>,
  options: {
    files?: Array<{ filename: string; content: Buffer | string }>;
    headers?: Record<string, string>;
  } = {},
) {
  const form = await multipart({ testData: JSON.stringify(testData) }, options.files);
  const response = await t.api({
    method: 'POST',
    url: '/v1/tests',
    payload: form.payload,
    headers: { ...form.headers, ...options.headers },
  });
  if (response.statusCode !== 200) throw new Error(`create failed: ${response.statusCode} ${response.body}`);
  return response.json().data as { id: string; parentTestId: string | null };
}

/** A free loopback port (for a process or a PUBLIC_URL that must be known before it listens). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
