import { buildApp } from './app.ts';
import { ConfigError, loadConfig } from './config.ts';
import { logBrowser } from './runner/browser.ts';

/** `npm start`: the service on the embedded default (SQLite and files under DATA_DIR). */
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
  const { app, bootstrap } = await buildApp({ config });
  if (bootstrap) {
    // Printed once, on the first start only; the same values are in DATA_DIR/bootstrap.json
    // (mode 0600) until the admin first signs in.
    process.stdout.write(
      [
        '',
        'Stepdeck is set up. Keep these; they are shown only now:',
        `  organization  ${bootstrap.organizationId}`,
        `  project       ${bootstrap.projectId} (Default, branch main ${bootstrap.branchId})`,
        `  API key       ${bootstrap.apiKey}`,
        `  console       ${bootstrap.adminEmail} / ${bootstrap.adminPassword}`,
        `  written to    ${config.dataDir}/bootstrap.json (deleted when the admin first signs in)`,
        '',
      ].join('\n'),
    );
  }
  await app.listen({ port: config.port, host: config.host });
  void logBrowser(app.log);

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    await app.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

await main();
