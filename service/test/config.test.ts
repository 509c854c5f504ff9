import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';

const serverFile = fileURLToPath(new URL('../src/server.ts', import.meta.url));

describe('configuration', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      dataDir: path.resolve('./data'),
      publicUrl: 'http://127.0.0.1:8080',
      databaseUrl: undefined,
      adminPassword: undefined,
      logLevel: 'info',
      rateLimitPerMinute: 300,
      runnerStandbyIdleMs: 300_000,
    });
  });

  it('reads RUNNER_STANDBY_IDLE_SECONDS in seconds, 0 meaning no standby runner', () => {
    expect(loadConfig({ RUNNER_STANDBY_IDLE_SECONDS: '0' }).runnerStandbyIdleMs).toBe(0);
    expect(loadConfig({ RUNNER_STANDBY_IDLE_SECONDS: '3600' }).runnerStandbyIdleMs).toBe(3_600_000);
  });

  it('resolves a relative DATA_DIR against the directory npm was run from', () => {
    // `npm start` at the root runs the service's script inside service/; npm sets INIT_CWD.
    expect(loadConfig({ INIT_CWD: '/srv/stepdeck' }).dataDir).toBe('/srv/stepdeck/data');
    expect(loadConfig({ INIT_CWD: '/srv/stepdeck', DATA_DIR: 'state' }).dataDir).toBe('/srv/stepdeck/state');
    expect(loadConfig({ INIT_CWD: '/srv/stepdeck', DATA_DIR: '/var/lib/stepdeck' }).dataDir).toBe(
      '/var/lib/stepdeck',
    );
  });

  it('derives PUBLIC_URL from HOST and PORT, and honours an explicit one without its trailing slash', () => {
    expect(loadConfig({ HOST: '0.0.0.0', PORT: '9000' }).publicUrl).toBe('http://0.0.0.0:9000');
    expect(loadConfig({ HOST: '::1', PORT: '9000' }).publicUrl).toBe('http://[::1]:9000');
    expect(loadConfig({ PUBLIC_URL: 'https://tests.example.com/' }).publicUrl).toBe(
      'https://tests.example.com',
    );
  });

  it('accepts postgres URLs and treats blank values as unset', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://u:p@localhost/db' }).databaseUrl).toBe(
      'postgres://u:p@localhost/db',
    );
    expect(loadConfig({ DATABASE_URL: 'postgresql://localhost/db' }).databaseUrl).toBe(
      'postgresql://localhost/db',
    );
    expect(loadConfig({ DATABASE_URL: '  ', PUBLIC_URL: '' })).toMatchObject({
      databaseUrl: undefined,
      publicUrl: 'http://127.0.0.1:8080',
    });
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['PORT', '-1'],
    ['PORT', '80.5'],
    ['DATABASE_URL', 'mysql://localhost/db'],
    ['PUBLIC_URL', 'not a url'],
    ['PUBLIC_URL', 'ftp://files.example.com'],
    ['ADMIN_PASSWORD', 'short'],
    ['LOG_LEVEL', 'loud'],
    ['RATE_LIMIT_PER_MINUTE', '0'],
    ['RUNNER_STANDBY_IDLE_SECONDS', '-1'],
    ['RUNNER_STANDBY_IDLE_SECONDS', 'forever'],
    ['RUNNER_STANDBY_IDLE_SECONDS', '604801'],
  ])('rejects %s=%s with a message naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`${name}`));
  });

  it.each([
    ['PORT', 'abc'],
    ['DATABASE_URL', 'mysql://localhost/db'],
    ['PUBLIC_URL', 'nope'],
  ])('the server process exits non-zero on %s=%s, naming it', (name, value) => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-config-'));
    try {
      const result = spawnSync(process.execPath, [serverFile], {
        env: { ...process.env, PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'silent', [name]: value },
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(result.status).not.toBe(0);
      expect(result.status).not.toBeNull();
      expect(result.stderr).toContain(name);
      expect(result.stderr).toMatch(/Invalid configuration/);
      // Nothing was set up on a bad configuration.
      expect(fs.existsSync(path.join(dataDir, 'bootstrap.json'))).toBe(false);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
