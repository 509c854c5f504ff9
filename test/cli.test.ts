import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli-main.ts';
import { apiKey, base, projectId, runDetail, uuid } from './fixtures.ts';

let out: string[] = [];
let err: string[] = [];
const write = {
  out: process.stdout.write.bind(process.stdout),
  err: process.stderr.write.bind(process.stderr),
};
function capture() {
  out = [];
  err = [];
  process.stdout.write = ((chunk: string) => out.push(String(chunk)) > 0) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string) => err.push(String(chunk)) > 0) as typeof process.stderr.write;
}

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  process.stdout.write = write.out;
  process.stderr.write = write.err;
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending).toEqual([]);
});

const env = { STEPDECK_API_KEY: apiKey, STEPDECK_BASE_URL: base, STEPDECK_PROJECT_ID: projectId };

describe('cli', () => {
  it('runs a tag with --wait, prints JSON and exits 1 per fail-on', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-cli-'));
    nock(base, { reqheaders: { 'x-api-key': apiKey } })
      .post('/v1/tests/remote-run', { tagId: uuid(5), config: { use: { browserName: 'webkit' } } })
      .reply(200, { data: { runId: uuid(10), status: 'pending', totalTests: 2, message: 'ok' } })
      .get(`/v1/test-runs/${uuid(10)}`)
      .reply(200, runDetail(uuid(10), 'failed', [{ name: 'cart', status: 'failed', errorMessage: 'boom' }]))
      .get(`/v1/test-runs/${uuid(10)}/report`)
      .reply(200, '<html></html>');
    capture();
    const code = await main(
      [
        'run',
        '--tag-id',
        uuid(5),
        '--wait',
        '--browser',
        'webkit',
        '--artifacts',
        'none',
        '--json',
        '--artifacts-dir',
        dir,
      ],
      env,
    );
    expect(code).toBe(1);
    const json = JSON.parse(out.join(''));
    expect(json).toMatchObject({ status: 'failed', 'run-id': uuid(10), failed: '1' });
    expect(json.results.tests[0]).toMatchObject({ name: 'cart', errorMessage: 'boom' });
    expect(err.join('')).toContain(`${uuid(10).slice(0, 8)} failed`);
    expect(`${out.join('')}${err.join('')}`).not.toContain(apiKey);
    expect(json['artifacts-path']).toBe(dir);
    expect(fs.existsSync(json['junit-path'])).toBe(true);
  });

  it('exits 2 with the input problem and usage', async () => {
    capture();
    expect(await main(['run', '--test-ids', 'x'], env)).toBe(2);
    expect(err.join('')).toContain('Input "test-ids" must contain UUIDs, got "x"');
    expect(await main(['deploy'], env)).toBe(2);
  });
});
