import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
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

  it('isolates runs by default, under uids of a range far from any user', () => {
    expect(loadConfig({}).runnerIsolation).toEqual({
      isolation: 'on',
      uidRange: [2_000_000_000, 2_000_009_999],
    });
    expect(loadConfig({ RUNNER_ISOLATION: 'off', RUNNER_UID_RANGE: '70000-70099' }).runnerIsolation).toEqual({
      isolation: 'off',
      uidRange: [70_000, 70_099],
    });
  });

  it('reads RUNNER_STANDBY_IDLE_SECONDS in seconds, 0 meaning no standby runner', () => {
    expect(loadConfig({ RUNNER_STANDBY_IDLE_SECONDS: '0' }).runnerStandbyIdleMs).toBe(0);
    expect(loadConfig({ RUNNER_STANDBY_IDLE_SECONDS: '3600' }).runnerStandbyIdleMs).toBe(3_600_000);
  });

  it('reads RUNNER_EGRESS_DENY and RUNNER_EGRESS_ALLOW as comma-separated rules, refusing bad entries by name', () => {
    expect(loadConfig({}).runnerEgress).toEqual({ deny: [], allow: [] });
    expect(
      loadConfig({
        RUNNER_EGRESS_DENY: '10.0.0.0/8, db.internal:5432',
        RUNNER_EGRESS_ALLOW: '[::1]:8080,169.254.169.254',
      }).runnerEgress,
    ).toEqual({
      deny: [
        { text: '10.0.0.0/8', cidr: '10.0.0.0/8' },
        { text: 'db.internal:5432', host: 'db.internal', port: 5432 },
      ],
      allow: [
        { text: '[::1]:8080', cidr: '::1/128', port: 8080 },
        { text: '169.254.169.254', cidr: '169.254.169.254/32' },
      ],
    });
    expect(() => loadConfig({ RUNNER_EGRESS_DENY: '10.0.0.0/8,not a host' })).toThrow(
      'Invalid configuration:\n  RUNNER_EGRESS_DENY: RUNNER_EGRESS_DENY: "not a host" is not an IP address, a CIDR range or a host name (each optionally with :port)',
    );
    expect(() => loadConfig({ RUNNER_EGRESS_ALLOW: '127.0.0.1:99999' })).toThrow(
      'RUNNER_EGRESS_ALLOW: RUNNER_EGRESS_ALLOW: the port of "127.0.0.1:99999" must be between 1 and 65535',
    );
  });

  it('reads MAX_STEPS_PER_TEST and MAX_STEP_TREE_BYTES, refusing bad values by name', () => {
    expect(loadConfig({})).toMatchObject({ maxStepsPerTest: 2000, maxStepTreeBytes: 1_048_576 });
    expect(loadConfig({ MAX_STEPS_PER_TEST: '1', MAX_STEP_TREE_BYTES: '1024' })).toMatchObject({
      maxStepsPerTest: 1,
      maxStepTreeBytes: 1024,
    });
    const problem = (env: Record<string, string>) => {
      try {
        loadConfig(env);
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as Error).message;
      }
      return 'accepted';
    };
    expect(problem({ MAX_STEPS_PER_TEST: '0' })).toBe(
      'Invalid configuration:\n  MAX_STEPS_PER_TEST: MAX_STEPS_PER_TEST must be at least 1',
    );
    expect(problem({ MAX_STEPS_PER_TEST: 'many' })).toBe(
      'Invalid configuration:\n  MAX_STEPS_PER_TEST: MAX_STEPS_PER_TEST must be a number',
    );
    expect(problem({ MAX_STEPS_PER_TEST: '2.5' })).toBe(
      'Invalid configuration:\n  MAX_STEPS_PER_TEST: MAX_STEPS_PER_TEST must be an integer',
    );
    expect(problem({ MAX_STEP_TREE_BYTES: '1023' })).toBe(
      'Invalid configuration:\n  MAX_STEP_TREE_BYTES: MAX_STEP_TREE_BYTES must be at least 1024',
    );
    expect(problem({ MAX_STEP_TREE_BYTES: '1MB' })).toBe(
      'Invalid configuration:\n  MAX_STEP_TREE_BYTES: MAX_STEP_TREE_BYTES must be a number',
    );
  });

  it('reads the artifact caps in bytes, refusing bad values by name', () => {
    expect(loadConfig({}).artifactLimits).toEqual({
      entryMaxBytes: 64 * 1024 * 1024,
      runMaxBytes: 512 * 1024 * 1024,
      orgMaxBytes: 10 * 1024 * 1024 * 1024,
    });
    expect(
      loadConfig({
        ARTIFACT_ENTRY_MAX_BYTES: '1048576',
        RUN_ARTIFACTS_MAX_BYTES: '2097152',
        ORG_ARTIFACTS_MAX_BYTES: '1099511627776',
      }).artifactLimits,
    ).toEqual({ entryMaxBytes: 1_048_576, runMaxBytes: 2_097_152, orgMaxBytes: 1_099_511_627_776 });
    expect(() => loadConfig({ RUN_ARTIFACTS_MAX_BYTES: '512MB' })).toThrow(
      'Invalid configuration:\n  RUN_ARTIFACTS_MAX_BYTES: RUN_ARTIFACTS_MAX_BYTES must be a number of bytes',
    );
    expect(() => loadConfig({ ARTIFACT_ENTRY_MAX_BYTES: '1000' })).toThrow(
      'ARTIFACT_ENTRY_MAX_BYTES: ARTIFACT_ENTRY_MAX_BYTES must be at least 1048576 (1 MiB)',
    );
    expect(() => loadConfig({ ORG_ARTIFACTS_MAX_BYTES: '1.5e9' })).not.toThrow();
    expect(() => loadConfig({ ORG_ARTIFACTS_MAX_BYTES: '1048576.5' })).toThrow(
      'ORG_ARTIFACTS_MAX_BYTES: ORG_ARTIFACTS_MAX_BYTES must be an integer (bytes)',
    );
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
    ['RUNNER_EGRESS_DENY', '10.0.0.0/99'],
    ['RUNNER_EGRESS_ALLOW', 'http://staging.example.com/'],
    ['RUNNER_ISOLATION', 'maybe'],
    ['RUNNER_UID_RANGE', '0-100'],
    ['RUNNER_UID_RANGE', '5000-4000'],
    ['RUNNER_UID_RANGE', '2000000000'],
    ['QUARANTINE_FLAKE_RATE', '1.5'],
    ['QUARANTINE_FLAKE_RATE', 'often'],
    ['QUARANTINE_RELEASE_PASS_RATE', '1'],
    ['QUARANTINE_MIN_RESULTS', '1'],
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

describe('SECRET_ENCRYPTION_KEY', () => {
  const key = randomBytes(32);
  const message = (name: string) =>
    `Invalid configuration:\n  ${name}: ${name} must be 32 bytes as 64 hex characters or base64 (openssl rand -base64 32)`;

  it('takes 32 bytes as base64 or 64 hex characters, the previous key beside it', () => {
    expect(loadConfig({}).secretKeys).toBeUndefined();
    expect(loadConfig({ SECRET_ENCRYPTION_KEY: key.toString('base64') }).secretKeys).toEqual({
      current: key,
    });
    expect(
      loadConfig({
        SECRET_ENCRYPTION_KEY: ` ${key.toString('hex')} `,
        SECRET_ENCRYPTION_KEY_PREVIOUS: key.toString('base64url'),
      }).secretKeys,
    ).toEqual({ current: key, previous: key });
  });

  it.each([
    ['a pass phrase', 'correct horse battery staple'],
    ['16 bytes', randomBytes(16).toString('base64')],
    ['33 bytes', randomBytes(33).toString('base64')],
    ['63 hex characters', key.toString('hex').slice(1)],
  ])('refuses %s with a message naming the setting, never the value', (_what, value) => {
    for (const name of ['SECRET_ENCRYPTION_KEY', 'SECRET_ENCRYPTION_KEY_PREVIOUS']) {
      const env = { SECRET_ENCRYPTION_KEY: key.toString('base64'), [name]: value };
      expect(() => loadConfig(env)).toThrow(new ConfigError(message(name)));
    }
  });

  it('refuses a previous key without a current one', () => {
    expect(() => loadConfig({ SECRET_ENCRYPTION_KEY_PREVIOUS: key.toString('base64') })).toThrow(
      new ConfigError(
        'Invalid configuration:\n  SECRET_ENCRYPTION_KEY_PREVIOUS: is only read with SECRET_ENCRYPTION_KEY set (the key to re-seal under)',
      ),
    );
  });
});
