import { execFile } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import { linkPlaywright, writeProject } from '../../../src/runner/index.ts';
import { createTestApp, databaseKinds, multipart, type TestApp } from '../../helper.ts';
import { exportedRunEnv, tempDir } from '../../runner/fixtures.ts';
import { createTest, waitForStatus } from './helpers.ts';

/**
 * Data sets: a test with a table runs once per row in real Chromium against a loopback page.
 * Each row is its own result named by the row, a failing row says which, the run's stats count
 * rows, history keeps the test's worst verdict once per run, a step reading a column the table
 * lacks is refused on save, and the exported project runs the rows with plain Playwright.
 */

const run = promisify(execFile);

/** The entries of a zip, by name. */
function readZip(buffer: Buffer): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(buffer, { lazyEntries: true }, (error, zip) => {
      if (error || !zip) return reject(error);
      const out = new Map<string, Buffer>();
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (streamError, stream) => {
          if (streamError || !stream) return reject(streamError);
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('end', () => {
            out.set(entry.fileName, Buffer.concat(chunks));
            zip.readEntry();
          });
        });
      });
      zip.on('end', () => resolve(out));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

/** A greeter: types a name, shows "Hello <name>". */
async function startGreeter() {
  const server = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(
      `<!doctype html><title>Greeter</title><input id="name" aria-label="Name"><button id="go" onclick="document.getElementById('out').textContent='Hello '+document.getElementById('name').value">Go</button><p id="out"></p>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const greetSteps = [
  { name: 'Open', action: { name: 'goto', url: '/' } },
  { name: 'Type the name', action: { name: 'fill', selector: '#name', value: '{{data.user}}' } },
  { name: 'Greet', action: { name: 'click', selector: '#go' } },
  {
    name: 'Check the greeting',
    action: { name: 'assertText', selector: '#out', value: '{{data.greeting}}', timeout: 1_000 },
  },
];
const table = {
  columns: ['user', 'greeting'],
  rows: [
    ['Ada', 'Hello Ada'],
    ['Bob', 'Hello Bob'],
    ['Cy', 'Hello Nobody'],
  ],
};

async function updateTest(t: TestApp, testId: string, testData: Record<string, unknown>) {
  const form = await multipart({ testData: JSON.stringify(testData) });
  return t.api({ method: 'PUT', url: `/v1/tests/${testId}`, payload: form.payload, headers: form.headers });
}

describe.each(databaseKinds)('data sets on %s', (database) => {
  let t: TestApp;
  let site: Awaited<ReturnType<typeof startGreeter>>;

  beforeAll(async () => {
    site = await startGreeter();
    t = await createTestApp({ database, background: true, env: { RATE_LIMIT_PER_MINUTE: '100000' } });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await site?.close();
  });

  it('runs a 3-row test as 3 results named by row; the failing row says which; stats count rows', async () => {
    const testId = await createTest(t, { name: 'Greet', steps: greetSteps, dataSet: table });
    const detail = await t.api({ method: 'GET', url: `/v1/tests/${testId}` });
    expect(detail.json().test.dataSet).toEqual(table);

    const started = await t.api({
      method: 'POST',
      url: `/v1/tests/${testId}/remote-run`,
      payload: { config: { use: { baseURL: site.url, trace: 'off', video: 'off', screenshot: 'off' } } },
    });
    expect(started.statusCode, started.body).toBe(200);
    const runId = started.json().data.runId as string;
    const finished = (await waitForStatus(t, runId, ['completed', 'failed'], 240_000)) as unknown as {
      status: string;
      stats: Record<string, number>;
      report: {
        runTypeInfo: {
          testResults: Array<{
            testId: string;
            name: string;
            status: string;
            errorMessage: string | null;
            dataRow?: { index: number; name: string };
          }>;
        };
      };
    };
    expect(finished.status).toBe('failed');
    expect(finished.stats).toEqual({ passed: 2, failed: 1, skipped: 0, total: 3 });
    const results = finished.report.runTypeInfo.testResults;
    expect(results.map((result) => [result.name, result.status, result.dataRow])).toEqual([
      ['Greet [Ada]', 'passed', { index: 0, name: 'Ada' }],
      ['Greet [Bob]', 'passed', { index: 1, name: 'Bob' }],
      ['Greet [Cy]', 'failed', { index: 2, name: 'Cy' }],
    ]);
    expect(results.every((result) => result.testId === testId)).toBe(true);
    const failed = results[2]?.errorMessage ?? '';
    expect(failed).toContain('Check the greeting');
    expect(failed).toContain('Data set row 3: Cy');
    expect(failed).toContain('Hello Nobody');
    expect(failed).toContain('Hello Cy');
    expect(results[0]?.errorMessage).toBeNull();

    // History: the test once for the run, with its worst row's verdict (recorded after the run ends).
    let statuses: string[] = [];
    for (let tries = 0; tries < 100 && statuses.length === 0; tries++) {
      const history = await t.api({ method: 'GET', url: `/v1/tests/${testId}/history` });
      expect(history.statusCode, history.body).toBe(200);
      const entries = history.json().data as Array<{ runId: string; status: string }>;
      statuses = entries.filter((entry) => entry.runId === runId).map((entry) => entry.status);
      if (statuses.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(statuses).toEqual(['failed']);
  }, 300_000);

  it('refuses a step reading a column the data set lacks, naming the step and column', async () => {
    const form = await multipart({
      testData: JSON.stringify({
        name: 'Typo',
        steps: greetSteps,
        dataSet: { columns: ['usr', 'greeting'], rows: [['a', 'b']] },
      }),
    });
    const created = await t.api({
      method: 'POST',
      url: '/v1/tests',
      payload: form.payload,
      headers: form.headers,
    });
    expect(created.statusCode).toBe(400);
    expect(created.json().message).toContain(
      'step "Type the name" reads {{data.user}}: the data set has no column "user" (its columns: usr, greeting)',
    );

    const testId = await createTest(t, { name: 'Kept', steps: greetSteps, dataSet: table });
    const removed = await updateTest(t, testId, { dataSet: null });
    expect(removed.statusCode).toBe(400);
    expect(removed.json().message).toContain(
      'step "Type the name" reads {{data.user}} but the test has no data set',
    );
    const bad = await updateTest(t, testId, { dataSet: { columns: ['user', 'user'], rows: [['a', 'b']] } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toContain('column "user" appears twice');
    const renamed = await updateTest(t, testId, {
      dataSet: { ...table, columns: ['user', 'greeting'], nameColumn: 'greeting' },
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
  });

  it('carries the data set through a duplicate and a JSON export and import', async () => {
    const testId = await createTest(t, { name: 'Carried', steps: greetSteps, dataSet: table });
    const copy = await t.api({ method: 'POST', url: `/v1/tests/${testId}/duplicate`, payload: {} });
    expect(copy.statusCode, copy.body).toBe(200);
    const copied = await t.api({ method: 'GET', url: `/v1/tests/${copy.json().data.id}` });
    expect(copied.json().test.dataSet).toEqual(table);

    const exported = await t.api({
      method: 'POST',
      url: '/v1/tests/export',
      payload: { testIds: [testId], format: 'json' },
    });
    expect(exported.statusCode).toBe(200);
    const form = await multipart({}, [
      { field: 'file', filename: 'tests.zip', content: exported.rawPayload },
    ]);
    const imported = await t.api({
      method: 'POST',
      url: '/v1/tests/import',
      payload: form.payload,
      headers: form.headers,
    });
    expect(imported.statusCode, imported.body).toBe(200);
    expect(imported.json().data.imported.tests).toBe(1);
    const list = await t.api({ method: 'GET', url: '/v1/tests?name=Carried' });
    const ids = (list.json().children as Array<{ id: string }>).map((item) => item.id);
    const importedId = ids.find((id) => id !== testId && id !== copy.json().data.id) as string;
    const detail = await t.api({ method: 'GET', url: `/v1/tests/${importedId}` });
    expect(detail.json().test.dataSet).toEqual(table);
  });

  it('exports a data-driven test whose rows run green with plain npx playwright test', async () => {
    const testId = await createTest(t, {
      name: 'Greet all',
      steps: greetSteps,
      config: { use: { baseURL: site.url } },
      dataSet: { columns: ['user', 'greeting'], rows: table.rows.slice(0, 2).concat([['Di', 'Hello Di']]) },
    });
    const response = await t.api({
      method: 'POST',
      url: '/v1/tests/export',
      payload: { testIds: [testId], format: 'pw' },
    });
    expect(response.statusCode).toBe(200);
    const entries = await readZip(response.rawPayload);
    const specName = [...entries.keys()].find((name) => name.endsWith('.spec.ts')) as string;
    expect(entries.get(specName)?.toString()).toContain('for (const row of rows) test(row.title');
    const dir = await tempDir('data-set-export');
    await writeProject(dir, { files: entries, specFiles: new Map() });
    await linkPlaywright(dir);
    const { stdout } = await run('npx', ['playwright', 'test', '--reporter=list'], {
      cwd: dir,
      env: await exportedRunEnv(),
      timeout: 180_000,
    }).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`npx playwright test failed:\n${error.stdout}\n${error.stderr}`);
    });
    expect(stdout).toMatch(/3 passed/);
    expect(stdout).toContain('Greet all [Di]');
    expect(stdout).not.toMatch(/failed/);
  }, 240_000);
});
