import { EventEmitter } from 'node:events';
import path from 'node:path';
import { FileBlobStore } from './adapters/blobs/file.ts';
import type { BlobStore } from './adapters/blobs/index.ts';
import { S3BlobStore } from './adapters/blobs/s3.ts';
import { openDatabase } from './adapters/db/index.ts';
import { systemClock } from './clock.ts';
import { ConfigError, loadConfig } from './config.ts';
import type { AppContext, DomainEvents } from './context.ts';
import { serviceModules } from './modules/index.ts';
import { installSecret } from './settings.ts';

/**
 * `npm run worker`: the runner without HTTP. With DATABASE_URL, any number of workers (and
 * API processes) share the runs in PostgreSQL: each claims pending runs under the org's
 * concurrency cap, executes them and reports. Also delivers the webhooks of the runs it ends,
 * and claims due schedule ticks and performs `schedules.fire` jobs (each tick fires once).
 * Blobs must be shared with the API: S3_* settings, or the same DATA_DIR.
 */
const workerModules = new Set(['runs', 'webhooks', 'schedules']);

function logger(level: string) {
  const quiet = level === 'silent' || level === 'fatal' || level === 'error';
  const write = (kind: string, obj: object | string, msg?: string) => {
    const line =
      typeof obj === 'string'
        ? { level: kind, msg: obj }
        : {
            level: kind,
            msg,
            ...obj,
            ...('err' in obj ? { err: String((obj as { err: unknown }).err) } : {}),
          };
    process.stderr.write(
      `${JSON.stringify({ time: new Date().toISOString(), pid: process.pid, ...line })}\n`,
    );
  };
  return {
    info: (obj: object | string, msg?: string) =>
      quiet || level === 'warn' ? undefined : write('info', obj, msg),
    warn: (obj: object | string, msg?: string) => (quiet ? undefined : write('warn', obj, msg)),
    error: (obj: object | string, msg?: string) =>
      level === 'silent' ? undefined : write('error', obj, msg),
  };
}

async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  if (!config.databaseUrl) {
    process.stderr.write(
      'npm run worker needs DATABASE_URL (PostgreSQL): the embedded service already runs its own runner\n',
    );
    process.exit(1);
  }
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const blobs: BlobStore = config.s3
    ? new S3BlobStore(config.s3)
    : new FileBlobStore({
        root: path.join(config.dataDir, 'blobs'),
        signingKey: await installSecret(database.db, 'blobSigningKey'),
        publicUrl: config.publicUrl,
      });
  const ctx: AppContext = {
    config,
    database,
    db: database.db,
    blobs,
    clock: systemClock,
    events: new EventEmitter<DomainEvents>(),
    branchCopiers: [],
    log: logger(config.logLevel),
  };
  const stops: Array<() => Promise<void>> = [];
  for (const module of serviceModules) {
    if (module.start && workerModules.has(module.name)) stops.push(await module.start(ctx));
  }
  ctx.log.info({ modules: [...workerModules] }, 'worker started');
  process.stdout.write(`worker ready ${process.pid}\n`);

  let closing = false;
  const shutdown = async () => {
    if (closing) return;
    closing = true;
    for (const stop of stops.reverse()) await stop().catch(() => {});
    await database.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown());
  process.on('SIGINT', () => void shutdown());
}

await main();
