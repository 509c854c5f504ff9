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
    expect(json).toMatchObject({ status: 'failed', 'run-id': uuid(10), failed: 1, passed: 0, total: 1 });
    expect(json.results.tests[0]).toMatchObject({ name: 'cart', errorMessage: 'boom' });
    expect(err.join('')).toContain(`${uuid(10).slice(0, 8)} failed`);
    expect(`${out.join('')}${err.join('')}`).not.toContain(apiKey);
    expect(json['artifacts-path']).toBe(dir);
    expect(fs.existsSync(json['junit-path'])).toBe(true);
  });

  it('--environment (or STEPDECK_ENVIRONMENT) picks the project environment of the run', async () => {
    for (const [argv, extra] of [
      [['--environment', 'production'], {}],
      [[], { STEPDECK_ENVIRONMENT: 'production' }],
    ] as const) {
      nock(base, { reqheaders: { 'x-api-key': apiKey } })
        .post(`/v1/tests/${uuid(1)}/remote-run`, { environment: 'production' })
        .reply(200, { data: { runId: uuid(12), status: 'pending' } });
      capture();
      const code = await main(['run', '--test-ids', uuid(1), '--no-wait', ...argv], { ...env, ...extra });
      process.stdout.write = write.out;
      process.stderr.write = write.err;
      expect(code, err.join('')).toBe(0);
      expect(out.join('')).toContain(uuid(12));
    }
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
    expect(json).toMatchObject({ status: 'passed', passed: 1, total: 1, 'artifacts-path': dir });
    // Counts are numbers (the action's outputs stay strings).
    for (const name of ['passed', 'failed', 'skipped', 'flaky', 'total', 'carried-over', 'duration-ms'])
      expect(typeof json[name], name).toBe('number');
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
    expect(err.join('')).toContain('stepdeck: --test-ids / STEPDECK_TEST_IDS must contain UUIDs, got "x"\n');
    expect(err.join('')).not.toContain('Input "');
    expect(await main(['deploy'], env)).toBe(2);
  });

  it('input problems: one per line, named by flag and variable', async () => {
    capture();
    const code = await main(['run', '--fail-on', 'sometimes'], {
      STEPDECK_TAG_ID: uuid(5),
      STEPDECK_WAIT: 'maybe',
    });
    expect(code).toBe(2);
    const lines = err.join('').split('\n');
    expect(lines.slice(0, 5)).toEqual([
      'stepdeck: --api-key / STEPDECK_API_KEY is required',
      'stepdeck: --base-url / STEPDECK_BASE_URL is required',
      'stepdeck: --project-id / STEPDECK_PROJECT_ID is required',
      'stepdeck: --wait / STEPDECK_WAIT must be true or false, got "maybe"',
      'stepdeck: --fail-on / STEPDECK_FAIL_ON must list outcomes among failed, cancelled, timeout, error (or be "none"), got "sometimes"',
    ]);
    capture();
    await main(['run', '--test-ids', uuid(1), '--tag-id', uuid(5)], env);
    expect(err.join('')).toContain(
      'stepdeck: --test-ids / STEPDECK_TEST_IDS and --tag-id / STEPDECK_TAG_ID are exclusive: set exactly one of them\n',
    );
  });

  it('every option reads STEPDECK_<NAME>, the flag winning: STEPDECK_ARTIFACTS_DIR, STEPDECK_JSON', async () => {
    const fromVariable = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-cli-var-'));
    const fromFlag = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-cli-flag-'));
    const passing = () =>
      nock(base)
        .post(`/v1/tests/${uuid(1)}/remote-run`)
        .reply(200, { data: { runId: uuid(11), status: 'pending' } })
        .get(`/v1/test-runs/${uuid(11)}`)
        .reply(200, runDetail(uuid(11), 'completed', [{ name: 'home', status: 'passed' }]));
    passing();
    capture();
    const variables = { ...env, STEPDECK_ARTIFACTS_DIR: fromVariable, STEPDECK_JSON: 'true' };
    expect(await main(['run', '--test-ids', uuid(1), '--artifacts', 'none'], variables)).toBe(0);
    const json = JSON.parse(out.join(''));
    expect(json['artifacts-path']).toBe(fromVariable);
    expect(fs.existsSync(path.join(fromVariable, 'junit.xml'))).toBe(true);
    passing();
    capture();
    const flags = ['run', '--test-ids', uuid(1), '--artifacts', 'none', '--artifacts-dir', fromFlag];
    expect(await main(flags, { ...variables, STEPDECK_JSON: 'false' })).toBe(0);
    expect(out.join('')).toMatch(/^Status: passed/);
    expect(out.join('')).toContain(`Artifacts: ${fromFlag}`);
    capture();
    expect(await main(['run', '--test-ids', uuid(1)], { ...env, STEPDECK_JSON: 'yes' })).toBe(2);
    expect(err.join('')).toContain('stepdeck: --json / STEPDECK_JSON must be true or false, got "yes"');
  });

  it('--json: an error is still one JSON document on stdout, with the exit code kept', async () => {
    nock(base)
      .post(`/v1/tests/${uuid(1)}/remote-run`)
      .reply(401, { message: 'Invalid API key' });
    capture();
    expect(await main(['run', '--test-ids', uuid(1), '--json'], env)).toBe(2);
    expect(JSON.parse(out.join(''))).toEqual({
      status: 'error',
      error: `POST /v1/tests/${uuid(1)}/remote-run failed with 401: Invalid API key`,
    });
    expect(err.join('')).toContain('stepdeck: POST ');
    capture();
    expect(await main(['run', '--test-ids', 'x'], { ...env, STEPDECK_JSON: 'true' })).toBe(2);
    expect(JSON.parse(out.join(''))).toEqual({
      status: 'error',
      error: '--test-ids / STEPDECK_TEST_IDS must contain UUIDs, got "x"',
    });
    capture();
    expect(await main(['run', '--bogus', '--json'], env)).toBe(2);
    expect(JSON.parse(out.join('')).error).toMatch(/bogus/);
  });

  it('--no-wait prints "<run-id> <run-url>" on stdout, so RUN=$(stepdeck run --no-wait) holds it', async () => {
    nock(base)
      .post('/v1/tests/remote-run', { tagId: uuid(5) })
      .reply(200, { data: { runId: uuid(12), status: 'pending', totalTests: 3, message: 'ok' } });
    capture();
    expect(await main(['run', '--tag-id', uuid(5), '--no-wait'], env)).toBe(0);
    expect(out.join('')).toBe(`${uuid(12)} ${base}/console/projects/${projectId}/runs/${uuid(12)}\n`);
  });
});
