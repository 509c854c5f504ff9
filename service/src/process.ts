import fs from 'node:fs';
import path from 'node:path';
import { openDatabase } from './adapters/db/index.ts';
import { buildApp } from './app.ts';
import type { BootstrapInfo } from './bootstrap.ts';
import { type Config, ConfigError, listenError, loadConfig, StartupError } from './config.ts';
import { logBrowser } from './runner/browser.ts';
import { configureIsolation } from './runner/executor.ts';

/**
 * What `npm start` (role `api`) and `npm run worker` (role `worker`) share: the configuration,
 * the start-up checks, the one app (the worker readies it without listening), and the
 * shutdown on SIGTERM/SIGINT. A start-up problem is one line naming the setting, exit 1.
 */
export async function runProcess(role: 'api' | 'worker'): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
    if (role === 'worker' && !config.databaseUrl)
      throw new StartupError(
        'npm run worker needs DATABASE_URL (PostgreSQL): the embedded service already runs its own runner',
      );
    checkDataDir(config.dataDir);
    checkChromium();
  } catch (error) {
    return fail(error);
  }
  try {
    const isolation = await configureIsolation(config.runnerIsolation);
    // Runs under other uids must not read the database, blobs or bootstrap credentials.
    if (isolation.mode === 'uid') closeDataDir(config.dataDir);
  } catch (error) {
    return fail(error instanceof StartupError ? error : new StartupError((error as Error).message));
  }

  let database: Awaited<ReturnType<typeof openDatabase>>;
  try {
    database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  } catch (error) {
    return fail(databaseError(error, config));
  }
  let built: Awaited<ReturnType<typeof buildApp>>;
  try {
    built = await buildApp({
      config,
      database,
      role,
      background: true,
      bootstrap: role === 'api' ? 'later' : 'never',
    });
  } catch (error) {
    // A stored secret this key cannot open, among others: one line, nothing started.
    await database.close().catch(() => {});
    return fail(error);
  }
  const { app, installBootstrap } = built;
  const closeAll = async () => {
    await app.close();
    await database.close();
  };
  database.onPoolError = (error) => app.log.warn({ err: error }, 'database pool error');

  try {
    if (role === 'api') {
      await app.ready();
      await app.listen({ port: config.port, host: config.host }).catch((error: unknown) => {
        throw listenError(error, 'PORT', config.host, config.port);
      });
      // Written only now that every listener is up: a failed start leaves no credentials.
      const bootstrap = await installBootstrap();
      if (bootstrap) printBootstrap(bootstrap, config.dataDir);
      void logBrowser(app.log);
    } else {
      await app.ready();
      app.log.info({ modules: ['runs', 'webhooks', 'schedules'] }, 'worker started');
      process.stdout.write(`worker ready ${process.pid}\n`);
    }
  } catch (error) {
    await closeAll().catch(() => {});
    return fail(error);
  }

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) {
      app.log.warn({ signal }, 'second signal: exiting without waiting');
      process.exit(1);
    }
    closing = true;
    app.log.info({ signal, graceMs: config.shutdownGraceMs }, 'shutting down');
    // HTTP and SMTP stop accepting first; running runs then get the grace period.
    app.runs.shutdownGraceMs = config.shutdownGraceMs;
    try {
      await closeAll();
      process.exit(0);
    } catch (error) {
      app.log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

function fail(error: unknown): never {
  if (error instanceof ConfigError || error instanceof StartupError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  throw error;
}

/** DATA_DIR must exist (or be creatable) and be writable: the database, blobs and bootstrap live there. */
function checkDataDir(dataDir: string): void {
  try {
    fs.mkdirSync(dataDir, { recursive: true });
    const probe = path.join(dataDir, `.write-check-${process.pid}`);
    fs.writeFileSync(probe, '');
    fs.rmSync(probe);
  } catch (error) {
    const code = (error as { code?: string }).code ?? String(error);
    throw new StartupError(
      `DATA_DIR ${dataDir} is not writable (${code}): set DATA_DIR to a folder this user can write`,
    );
  }
}

/**
 * With runs under uids of their own, DATA_DIR is the service's alone (0700): a folder made
 * before (by hand, by an older version) may let others in. Refused when it is not ours to change.
 */
function closeDataDir(dataDir: string): void {
  const stat = fs.statSync(dataDir);
  if ((stat.mode & 0o077) === 0) return;
  try {
    fs.chmodSync(dataDir, 0o700);
  } catch (error) {
    const code = (error as { code?: string }).code ?? String(error);
    throw new StartupError(
      `DATA_DIR ${dataDir} is readable by other users and could not be made private (${code}): chmod 700 it, or set RUNNER_ISOLATION=off`,
    );
  }
}

/** A CHROMIUM_PATH that names no file would fail every browser run: refused at start-up. */
function checkChromium(): void {
  // No Chromium at all is only a warning (logBrowser at start-up): API-only installs need none.
  const configured = process.env.CHROMIUM_PATH?.trim();
  if (configured && !fs.existsSync(configured))
    throw new StartupError(
      `Chromium not found: CHROMIUM_PATH is ${configured}, which does not exist; set CHROMIUM_PATH to the chromium binary`,
    );
}

/** The database could not be opened: one line naming where (never the password). */
function databaseError(error: unknown, config: Config): Error {
  const code = (error as { code?: string }).code;
  const message = error instanceof Error ? error.message : String(error);
  if (!config.databaseUrl) {
    return new StartupError(`Cannot open the SQLite database in DATA_DIR ${config.dataDir}: ${message}`);
  }
  const url = new URL(config.databaseUrl);
  const where = `${url.hostname}:${url.port || 5432}${url.pathname}`;
  return new StartupError(
    `Cannot reach the database at ${where} (${code ?? message.split('\n')[0]}): check DATABASE_URL and that PostgreSQL is running`,
  );
}

function printBootstrap(bootstrap: BootstrapInfo, dataDir: string): void {
  // Printed once, on the first start only; the same values are in DATA_DIR/bootstrap.json (mode 0600).
  process.stdout.write(
    [
      '',
      'Stepdeck is set up. Keep these; they are shown only now:',
      `  organization  ${bootstrap.organizationId}`,
      `  project       ${bootstrap.projectId} (Default, branch main ${bootstrap.branchId})`,
      `  API key       ${bootstrap.apiKey}`,
      `  console       ${bootstrap.adminEmail} / ${bootstrap.adminPassword}`,
      `  written to    ${dataDir}/bootstrap.json (deleted when the admin first signs in)`,
      '',
    ].join('\n'),
  );
}
