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

  it('--json: one JSON document on stdout with artifacts downloaded, progress on stderr, no workflow commands, no signed URL', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-cli-'));
    const signed = (key: string) =>
      `${base}/blobs/runs/${uuid(11)}/${key}?expires=4102444800&signature=s3cr3tsig${key.length}`;
    nock(base, { reqheaders: { 'x-api-key': apiKey } })
      .post(`/v1/tests/${uuid(1)}/remote-run`)
      .reply(200, { data: { runId: uuid(11), status: 'pending', totalTests: 1, message: 'ok' } })
      .get(`/v1/test-runs/${uuid(11)}`)
      .reply(200, runDetail(uuid(11), 'completed', [{ name: 'home', status: 'passed' }]))
      .get(`/v1/test-runs/${uuid(11)}/report`)
      .reply(200, '<html>report</html>')
      .get(`/v1/test-runs/${uuid(11)}/artifacts`)
      .reply(200, {
        data: [
          { key: 'bundle.tgz', label: 'bundle', type: 'bundle', url: signed('bundle.tgz') },
          {
            key: 'home/trace.zip',
            label: 'trace',
            type: 'trace',
            url: signed('home/trace.zip'),
            testName: 'home',
          },
        ],
      });
    // The blob downloads carry no API key (the URL is its own credential).
    nock(base, { badheaders: ['x-api-key'] })
      .get(`/blobs/runs/${uuid(11)}/bundle.tgz`)
      .query(true)
      .reply(200, 'tgz bytes')
      .get(`/blobs/runs/${uuid(11)}/home/trace.zip`)
      .query(true)
      .reply(200, 'zip bytes');
    capture();
    const code = await main(['run', '--test-ids', uuid(1), '--json', '--artifacts-dir', dir], {
      ...env,
      RUNNER_DEBUG: '1',
    });
    expect(code, err.join('')).toBe(0);
    const stdout = out.join('');
    // Exactly one JSON document: the whole of stdout parses.
    const json = JSON.parse(stdout);
    expect(json).toMatchObject({ status: 'passed', passed: '1', total: '1', 'artifacts-path': dir });
    expect(json.results.tests).toEqual([expect.objectContaining({ name: 'home', status: 'passed' })]);
    expect(fs.readFileSync(path.join(dir, uuid(11), 'bundle.tgz'), 'utf8')).toBe('tgz bytes');
    expect(fs.readFileSync(path.join(dir, uuid(11), 'home', 'trace.zip'), 'utf8')).toBe('zip bytes');
    expect(fs.readFileSync(json['report-path'], 'utf8')).toBe('<html>report</html>');
    const everything = `${stdout}${err.join('')}`;
    expect(everything).not.toMatch(/^::/m);
    expect(everything).not.toContain('signature=');
    expect(everything).not.toContain('s3cr3tsig');
    expect(err.join('')).toContain('Started ');
  });

  it('exits 2 with the input problem and usage', async () => {
    capture();
    expect(await main(['run', '--test-ids', 'x'], env)).toBe(2);
    expect(err.join('')).toContain('Input "test-ids" must contain UUIDs, got "x"');
    expect(await main(['deploy'], env)).toBe(2);
  });
});
