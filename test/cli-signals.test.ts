import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnCli, startStub } from './cli/stub.ts';
import { waitFor } from './e2e/harness.ts';
import { apiKey, projectId, runDetail, uuid } from './fixtures.ts';

let stub: Awaited<ReturnType<typeof startStub>> | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

/** A service whose run never ends until cancelled. */
async function runningService() {
  let cancelled = false;
  stub = await startStub(({ method, url }) => {
    if (method === 'POST' && url === `/v1/tests/${uuid(1)}/remote-run`)
      return { status: 200, body: { data: { runId: uuid(10), status: 'pending' } } };
    if (method === 'GET' && url === `/v1/test-runs/${uuid(10)}`)
      return { status: 200, body: runDetail(uuid(10), cancelled ? 'cancelled' : 'running') };
    if (method === 'POST' && url === `/v1/test-runs/${uuid(10)}/cancel`) {
      cancelled = true;
      return { status: 200, body: { data: { success: true, message: 'Run cancelled' } } };
    }
    return undefined;
  });
  return stub;
}

describe('the CLI interrupted while it waits (child process, real signal)', () => {
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)
    it(`${signal}: cancels the run it started, says so in one line, exits ${code}`, async () => {
      const service = await runningService();
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-signal-'));
      const cli = spawnCli(
        ['run', '--test-ids', uuid(1), '--poll-interval-seconds', '1', '--artifacts-dir', dir],
        { STEPDECK_API_KEY: apiKey, STEPDECK_BASE_URL: service.url, STEPDECK_PROJECT_ID: projectId },
      );
      await waitFor(
        'the first poll',
        async () => (service.requests.some((r) => r.method === 'GET') ? true : undefined),
        20_000,
      );
      cli.child.kill(signal);
      expect(await cli.exited, cli.output.stderr).toBe(code);
      expect(service.requests.filter((r) => r.method === 'POST').map((r) => r.url)).toEqual([
        `/v1/tests/${uuid(1)}/remote-run`,
        `/v1/test-runs/${uuid(10)}/cancel`,
      ]);
      const lines = cli.output.stderr.trimEnd().split('\n');
      expect(lines.at(-1)).toBe(`stepdeck: interrupted by ${signal}: cancelled run ${uuid(10)}`);
      expect(cli.output.stderr).not.toContain(apiKey);
    });
});
