import { EventEmitter } from 'node:events';
import path from 'node:path';
import multipart from '@fastify/multipart';
import Fastify, { type FastifyInstance } from 'fastify';
import { FileBlobStore } from './adapters/blobs/file.ts';
import type { BlobStore } from './adapters/blobs/index.ts';
import { S3BlobStore } from './adapters/blobs/s3.ts';
import { type DatabaseHandle, openDatabase } from './adapters/db/index.ts';
import { type BootstrapInfo, bootstrapInstall } from './bootstrap.ts';
import { type Clock, systemClock } from './clock.ts';
import type { Config } from './config.ts';
import type { AppContext, DomainEvents } from './context.ts';
import { serviceModules } from './modules/index.ts';
import { authPlugin } from './plugins/auth/index.ts';
import { registerConsoleStatic } from './plugins/console-static.ts';
import { registerErrorHandling } from './plugins/errors.ts';
import { registerOpenApi, responseSerializerCompiler } from './plugins/openapi.ts';
import { registerRateLimit } from './plugins/rate-limit.ts';
import { registerRequestBodies } from './plugins/request-body.ts';
import { requestLogSerializers } from './plugins/request-log.ts';
import { registerSecurityHeaders } from './plugins/security-headers.ts';
import { registerSignedBlobRoute } from './plugins/signed-blobs.ts';
import { installSecret } from './settings.ts';

export interface BuildOptions {
  config: Config;
  /** An already-open database (tests share one per file); opened from config otherwise. */
  database?: DatabaseHandle;
  blobs?: BlobStore;
  clock?: Clock;
  /** Start background work (runners, SMTP, timers). Off for most API tests. */
  background?: boolean;
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
  bootstrap: BootstrapInfo | undefined;
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

export async function buildApp(options: BuildOptions): Promise<BuiltApp> {
  const { config } = options;
  const clock = options.clock ?? systemClock;
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
    trustProxy: false,
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

  const blobs =
    options.blobs ??
    (config.s3 ? new S3BlobStore(config.s3) : undefined) ??
    new FileBlobStore({
      root: path.join(config.dataDir, 'blobs'),
      signingKey: await installSecret(database.db, 'blobSigningKey'),
      publicUrl: config.publicUrl,
    });

  const ctx: AppContext = {
    config,
    database,
    db: database.db,
    blobs,
    clock,
    events: new EventEmitter<DomainEvents>(),
    branchCopiers: [],
    log: app.log,
  };

  await app.register(multipart, {
    limits: { fileSize: config.bodyLimitBytes, files: 20, fields: 20, fieldSize: config.bodyLimitBytes },
  });
  await registerRateLimit(app, { database, max: config.rateLimitPerMinute });
  await app.register(authPlugin, {
    db: database.db,
    clock,
    sqlite: database.sqlite,
    writes: database.writes,
  });
  await registerSecurityHeaders(app);
  await registerOpenApi(app, config.publicUrl);

  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  if (blobs instanceof FileBlobStore) registerSignedBlobRoute(app, blobs);

  for (const module of serviceModules) {
    if (module.routes) await module.routes(app, ctx);
  }
  await registerConsoleStatic(app, ctx);

  const stops: Array<() => Promise<void>> = [];
  app.addHook('onReady', async () => {
    if (options.background === false) return;
    for (const module of serviceModules) if (module.start) stops.push(await module.start(ctx));
  });
  app.addHook('onClose', async () => {
    for (const stop of stops.reverse()) await stop();
    if (!options.database) await database.close();
  });

  const bootstrap = await bootstrapInstall(database.db, {
    dataDir: config.dataDir,
    adminPassword: config.adminPassword,
    publicUrl: config.publicUrl,
    clock,
  });
  return { app, ctx, bootstrap };
}
