import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

const scriptUrl = new URL('../../scripts/postgres.mjs', import.meta.url).href;

/**
 * The CI gate: vitest reports failures through process.exitCode and lets the process end. The
 * embedded cluster's exit hook once turned that into exit 0, so failing suites passed CI.
 */
test('a process that started the embedded cluster keeps its failing exit code', () => {
  const program = `
    const { startPostgres } = await import(${JSON.stringify(scriptUrl)});
    const cluster = await startPostgres();
    await cluster.stop();
    process.exitCode = 3;
  `;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', program], {
    cwd: path.dirname(fileURLToPath(import.meta.url)),
    env: { ...process.env, TEST_DATABASE_URL: '', STEPDECK_TEST_PG: 'embedded' },
    encoding: 'utf8',
    timeout: 90_000,
  });
  expect(result.stderr).not.toMatch(/TypeError/);
  expect(result.status).toBe(3);
});
