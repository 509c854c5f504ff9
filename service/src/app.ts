import { EventEmitter } from 'node:events';
import path from 'node:path';
import multipart from '@fastify/multipart';
import Fastify, { type FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { sql } from 'kysely';
import { FileBlobStore } from './adapters/blobs/file.ts';
import type { BlobStore } from './adapters/blobs/index.ts';
import { S3BlobStore } from './adapters/blobs/s3.ts';
import { type DatabaseHandle, openDatabase } from './adapters/db/index.ts';
import { ProcessQueue } from './adapters/queue/index.ts';
import { type BootstrapInfo, bootstrapInstall } from './bootstrap.ts';
import { type Clock, systemClock } from './clock.ts';
import { type Config, defaultRunnerSlots } from './config.ts';
import type { AppContext, DomainEvents } from './context.ts';
import { Metrics } from './metrics.ts';
import { consoleCredentials } from './modules/accounts/public.ts';
import { type ModuleOptions, modulePlugins } from './modules/index.ts';
import { RunsRuntime } from './modules/runs/public.ts';
import { authPlugin } from './plugins/auth/index.ts';
import { registerCompression } from './plugins/compression.ts';
import { registerConsoleStatic } from './plugins/console-static.ts';
import { registerErrorHandling } from './plugins/errors.ts';
import { observabilityPlugin } from './plugins/observability.ts';
import { registerOpenApi, responseSerializerCompiler } from './plugins/openapi.ts';
import { registerRateLimit } from './plugins/rate-limit.ts';
import { registerRequestBodies } from './plugins/request-body.ts';
import { requestLogSerializers } from './plugins/request-log.ts';
import { registerSecurityHeaders } from './plugins/security-headers.ts';
import { registerSignedBlobRoute } from './plugins/signed-blobs.ts';
import { writeAdmissionPlugin } from './plugins/write-admission.ts';
import { SecretBox } from './secret-box.ts';
import { sealStoredSecrets } from './secret-sweep.ts';
import { installSecret } from './settings.ts';

export interface BuildOptions {
  config: Config;
  /** An already-open database (tests share one per file); opened from config (and closed with the app) otherwise. */
  database?: DatabaseHandle;
  blobs?: BlobStore;
  clock?: Clock;
  /** Start background work (runners, SMTP, timers) on ready. Off for most API tests. */
  background?: boolean;
  /** `api` (default): the HTTP service; `worker`: `npm run worker`, never listens, no SMTP. */
  role?: ModuleOptions['role'];
  /**
   * `now` (default): write the first-start bootstrap while building; `later`: leave it to
   * `installBootstrap()` (the server calls it once its listeners are up); `never` (worker).
   */
  bootstrap?: 'now' | 'later' | 'never';
  logger?: boolean;
  /**
   * `plain` serializes every body with JSON.stringify, ignoring response schemas: the state
   * before routes declared them, kept for the serialization benchmark (bench/serialization.ts).
   */
  responseSerialization?: 'schema' | 'plain';
  /** Where log lines go instead of stdout (tests capture them to check nothing secret is logged). */
  logStream?: { write(line: string): void };
}

export interface BuiltApp {
  app: FastifyInstance;
  ctx: AppContext;
  /** The first-start credentials when this build wrote them (bootstrap `now`). */
  bootstrap: BootstrapInfo | undefined;
  /** Writes the first-start bootstrap (once per install); undefined when already done. */
  installBootstrap(): Promise<BootstrapInfo | undefined>;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Everything modules share: config, database, blobs, clock, events, queue, metrics. */
    ctx: AppContext;
  }
}

/** Values that must never reach a log line. */
const redactedPaths = [
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'req.headers.authorization',
  'res.headers["set-cookie"]',
  '*.password',
  '*.apiKey',
  '*.secret',
];

/**
 * The service as one Fastify app: the API process (`server.ts`) listens on it, the worker
 * (`worker.ts`) only readies it. Shared parts are plugins registered first (the database,
 * the process's one queue), then each module as a plugin in dependency order; Fastify's
 * onReady (in order) starts background work and onClose (in reverse) stops it, so the
 * queue and the database close last.
 */
export async function buildApp(options: BuildOptions): Promise<BuiltApp> {
  const { config } = options;
  const clock = options.clock ?? systemClock;
  const background = options.background ?? true;
  const role = options.role ?? 'api';
  const database =
    options.database ?? (await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir }));

  const app = Fastify({
    logger:
      options.logger === false
        ? false
        : {
            level: config.logLevel,
            redact: { paths: redactedPaths, censor: '[redacted]' },
            serializers: requestLogSerializers,
            ...(options.logStream ? { stream: options.logStream } : {}),
          },
    bodyLimit: config.bodyLimitBytes,
    // Only the operator's proxies may name the client (X-Forwarded-For); anyone else could forge it.
    trustProxy: config.trustedProxies && config.trustedProxies.length > 0 ? config.trustedProxies : false,
    // Close idle keep-alive sockets on shutdown so SIGTERM does not wait on them.
    forceCloseConnections: 'idle',
  });
  app.setSerializerCompiler(
    options.responseSerialization === 'plain'
      ? () => (data) => JSON.stringify(data)
      : responseSerializerCompiler,
  );
  registerErrorHandling(app);
  registerRequestBodies(app);
  if (!options.database)
    database.onPoolError = (error) => app.log.warn({ err: error }, 'database pool error');

  const blobs =
    options.blobs ??
    (config.s3 ? new S3BlobStore(config.s3) : undefined) ??
    new FileBlobStore({
      root: path.join(config.dataDir, 'blobs'),
      signingKey: await installSecret(database.db, 'blobSigningKey'),
      publicUrl: config.publicUrl,
    });

  // One queue per process; it listens for jobs only where background work takes them.
  const queue = new ProcessQueue(config, { listen: background, log: app.log });
  const ctx: AppContext = {
    config,
    database,
    db: database.db,
    blobs,
    clock,
    events: new EventEmitter<DomainEvents>(),
    queue,
    runs: new RunsRuntime({ queue, log: app.log, remoteRunners: Boolean(config.databaseUrl) }),
    metrics: new Metrics(),
    branchCopiers: [],
    deleteGuards: { tests: [], presets: [] },
    signInGuards: [],
    log: app.log,
  };

  // Registered first, so their onClose hooks run last: the database, then the queue.
  await app.register(
    fp(
      async (instance) => {
        instance.decorate('ctx', ctx);
        instance.addHook('onClose', async () => {
          if (!options.database) await database.close();
        });
      },
      { name: 'database' },
    ),
  );
  await app.register(
    fp(
      async (instance) => {
        instance.addHook('onClose', async () => queue.close());
      },
      { name: 'queue', dependencies: ['database'] },
    ),
  );

  // Before every route: its hook attaches to the routes registered after it.
  await registerCompression(app);
  await app.register(multipart, {
    limits: { fileSize: config.bodyLimitBytes, files: 20, fields: 20, fieldSize: config.bodyLimitBytes },
  });
  await registerRateLimit(app, { database, max: config.rateLimitPerMinute });
  await app.register(authPlugin, {
    clock,
    credentials: consoleCredentials({
      db: database.db,
      clock,
      sqlite: database.sqlite,
      writes: database.writes,
      logError: (error, apiKeyId) =>
        app.log.warn({ err: error, apiKeyId }, 'could not record when the API key was last used'),
    }),
  });
  // After auth, before the modules: changing requests wait for a place after authentication.
  await app.register(writeAdmissionPlugin, { database });
  await registerSecurityHeaders(app);
  await registerOpenApi(app, config.publicUrl);
  await app.register(observabilityPlugin, { ctx });
  if (blobs instanceof FileBlobStore) registerSignedBlobRoute(app, blobs);

  const moduleOptions: ModuleOptions = { ctx, background, role };
  for (const plugin of modulePlugins) await app.register(plugin, moduleOptions);
  await registerConsoleStatic(app);
  await openSecrets(app, ctx);

  let installed = false;
  const installBootstrap = async () => {
    if (installed) return undefined;
    installed = true;
    return bootstrapInstall(database.db, {
      dataDir: config.dataDir,
      adminPassword: config.adminPassword,
      publicUrl: config.publicUrl,
      clock,
      runnerSlots: config.runnerSlots ?? defaultRunnerSlots,
    });
  };
  const bootstrap = (options.bootstrap ?? 'now') === 'now' ? await installBootstrap() : undefined;
  return { app, ctx, bootstrap, installBootstrap };
}

/**
 * Opens the install's secret box and seals, under its key, every stored secret that is not yet
 * (secret-sweep.ts); a value under a key this process was not given fails the build with a
 * StartupError naming `SECRET_ENCRYPTION_KEY`.
 */
async function openSecrets(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const box = await SecretBox.forInstall(ctx.db, ctx.config.secretKeys);
  if (!box.external && ctx.config.production)
    app.log.warn(
      'secrets are sealed with a key stored in the database: set SECRET_ENCRYPTION_KEY to keep the key outside it (docs/operations.md)',
    );
  const { plainTables, ...swept } = await sealStoredSecrets(ctx.db, box);
  if (swept.sealed + swept.resealed > 0)
    app.log.info({ ...swept, keyId: box.keyId }, 'stored secrets sealed under the current key');
  // The values replaced in clear still sit in SQLite's free pages and write-ahead log, or in
  // PostgreSQL's dead row versions, until they are rewritten: once, after the upgrade that
  // sealed them, the file (SQLite) or those tables (PostgreSQL, small: a brief exclusive lock)
  // are rebuilt. PostgreSQL's WAL and earlier backups are the operator's (docs/operations.md).
  if (swept.sealed > 0 && ctx.database.sqlite) {
    ctx.database.sqlite.exec('VACUUM');
    ctx.database.sqlite.pragma('wal_checkpoint(TRUNCATE)');
  } else if (plainTables.length > 0) {
    for (const table of plainTables) await sql`VACUUM FULL ${sql.table(table)}`.execute(ctx.db);
  }
}
