/**
 * Test history at scale, on SQLite (and PostgreSQL with `--database postgres|both`).
 *
 *   node bench/history.ts [--tests 10000] [--runs 100] [--requests 500] [--database sqlite|postgres|both]
 *
 * Seeds `--tests` × `--runs` results (1 000 000 by default) with a bulk insert: one result per
 * test per run, runs an hour apart, 1 in 10 runs on a feature branch, 1 in 8 results failed
 * (two fingerprints). Then measures, through `inject` with the bootstrap API key:
 * - `GET /v1/tests/:testId/history` (page of 20 and the summary over 50), `--requests` times
 *   over 20 tests: p50, p95, p99 (target p99 ≤ 20 ms);
 * - `GET /v1/test-runs/:runId/triage` of a run whose 100 tests all failed: p50, p99 over 100
 *   requests (target ≤ 50 ms);
 * - writing a 100-test run's history (`HistoryService.record`: results, each test's standing on
 *   the branch, the quarantine rules): p50, p99 over 50 runs;
 * - `GET /v1/test-insights` over the 5 000 tests those runs left standing: p50, p99.
 * PostgreSQL: a throwaway cluster (scripts/postgres.mjs) unless TEST_DATABASE_URL.
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';

const { values } = parseArgs({
  options: {
    tests: { type: 'string', default: '10000' },
    runs: { type: 'string', default: '100' },
    requests: { type: 'string', default: '500' },
    database: { type: 'string', default: 'sqlite' },
  },
});
const testCount = Number(values.tests);
const runCount = Number(values.runs);
const requests = Number(values.requests);

let stopPostgres: (() => void) | undefined;
if (values.database !== 'sqlite' && !process.env.TEST_DATABASE_URL) {
  // @ts-expect-error: a plain .mjs script without types
  const { startPostgres } = await import('../../scripts/postgres.mjs');
  const postgres = (await startPostgres()) as { url: string; stop: () => void };
  process.env.TEST_DATABASE_URL = postgres.url;
  stopPostgres = postgres.stop;
}
const { createTestApp, createTest } = await import('../test/helper.ts');
const { fingerprintOf } = await import('../src/modules/history/public.ts');
type TestApp = Awaited<ReturnType<typeof createTestApp>>;

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return (
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN
  );
};
const figures = (values: number[]) =>
  `p50 ${percentile(values, 50).toFixed(2)} ms, p95 ${percentile(values, 95).toFixed(2)} ms, p99 ${percentile(values, 99).toFixed(2)} ms`;

/** The two failures of the seed; the first is the one the triaged run fails with (`known` on main). */
const failures = [
  { stepId: 'step-checkout', action: 'assertText #state', message: 'Expected "Paid"' },
  { stepId: 'step-login', action: 'click #login', message: 'Timed out' },
].map((failure) => ({
  ...failure,
  fingerprint: fingerprintOf({
    stepId: failure.stepId,
    action: failure.action,
    errorMessage: failure.message,
  }),
}));

/** A runs row the results can point at (its report: every test of `testIds` failed). */
function runRow(
  t: TestApp,
  id: string,
  createdAt: string,
  branch: { id: string; name: string },
  testIds: string[],
) {
  const testResults = testIds.map((testId, index) => ({
    testId,
    name: `test ${index}`,
    status: 'failed',
    duration: 1000 + index,
    errorMessage: 'Expected "Paid"',
    errorLocation: 'Checkout › assertText #state',
    attempts: 1,
    failedStep: { stepId: 'step-checkout', name: 'Check', action: 'assertText #state', path: ['Check'] },
    steps: [
      {
        stepId: 'step-checkout',
        name: 'Check',
        action: 'assertText #state',
        path: ['Check'],
        depth: 0,
        status: 'failed',
        duration: 900,
        error: null,
      },
    ],
  }));
  return {
    id,
    organizationId: t.bootstrap.organizationId,
    projectId: t.bootstrap.projectId,
    branchId: branch.id,
    branchName: branch.name,
    name: 'bench',
    status: 'failed',
    mode: 'bulk',
    targetType: 'tag',
    targetId: randomUUID(),
    targetName: 'bench',
    testId: null,
    testName: null,
    testRevisionId: null,
    scheduleId: null,
    scheduleType: null,
    scheduleName: null,
    triggerType: 'apiKey',
    triggerName: 'bench',
    config: '{}',
    vars: null,
    parameters: null,
    metadata: JSON.stringify({ source: { commitSha: id.slice(0, 8), ref: branch.name } }),
    totalTests: testIds.length,
    stats: JSON.stringify({ passed: 0, failed: testIds.length, skipped: 0, total: testIds.length }),
    report: JSON.stringify({
      status: 'failed',
      testName: null,
      runName: 'bench',
      runId: id,
      duration: 1000,
      completedAt: createdAt,
      branchId: branch.id,
      branchName: branch.name,
      scheduleName: null,
      runTypeInfo: {
        type: 'tag',
        name: 'bench',
        testResults,
        stats: { passed: 0, failed: testIds.length, skipped: 0, total: testIds.length },
      },
    }),
    runnerError: null,
    duration: 1000,
    runnerId: null,
    heartbeatAt: null,
    createdAt,
    queuedAt: createdAt,
    startedAt: createdAt,
    completedAt: createdAt,
    cancelledAt: null,
  };
}

async function seed(t: TestApp, testIds: string[], feature: { id: string; name: string }) {
  const main = { id: t.bootstrap.branchId, name: 'main' };
  const start = Date.parse('2026-01-01T00:00:00Z');
  const runs = Array.from({ length: runCount }, (_, index) => ({
    id: randomUUID(),
    branch: index % 10 === 9 ? feature : main,
    createdAt: new Date(start + index * 3_600_000).toISOString(),
  }));
  await t.ctx.db
    .insertInto('runs')
    .values(runs.map((run) => runRow(t, run.id, run.createdAt, run.branch, [])))
    .execute();
  const started = performance.now();
  const rowOf = (run: (typeof runs)[number], runIndex: number, testIndex: number) => {
    const failed = (testIndex + runIndex) % 8 === 0;
    const failure = failures[testIndex % 2] ?? failures[0];
    const createdAt = new Date(Date.parse(run.createdAt) + testIndex).toISOString();
    return [
      run.id,
      testIds[testIndex] as string,
      t.bootstrap.organizationId,
      t.bootstrap.projectId,
      null,
      run.branch.id,
      run.branch.name,
      'apiKey',
      failed ? 'failed' : 'passed',
      900 + ((testIndex * 7 + runIndex * 13) % 400),
      1,
      failed ? (failure?.stepId ?? null) : null,
      failed ? (failure?.fingerprint ?? null) : null,
      failed ? (failure?.message ?? null) : null,
      '{"step-open":120,"step-checkout":700}',
      run.id.slice(0, 8),
      run.branch.name,
      null,
      null,
      createdAt,
    ] as const;
  };
  const columns = [
    'runId',
    'testId',
    'organizationId',
    'projectId',
    'testRevisionId',
    'branchId',
    'branchName',
    'triggerType',
    'status',
    'duration',
    'attempts',
    'failedStepId',
    'fingerprint',
    'errorMessage',
    'stepDurations',
    'commitSha',
    'ref',
    'pullRequest',
    'label',
    'createdAt',
  ] as const;
  const sqlite = t.ctx.database.sqlite;
  if (sqlite) {
    const insert = sqlite.prepare(
      `insert into "testResults" (${columns.map((column) => `"${column}"`).join(', ')}) values (${columns.map(() => '?').join(', ')})`,
    );
    const insertRun = sqlite.transaction((run: (typeof runs)[number], runIndex: number) => {
      for (let testIndex = 0; testIndex < testIds.length; testIndex++)
        insert.run(...rowOf(run, runIndex, testIndex));
    });
    for (const [runIndex, run] of runs.entries()) insertRun(run, runIndex);
  } else {
    for (const [runIndex, run] of runs.entries()) {
      for (let from = 0; from < testIds.length; from += 2000) {
        const rows = [];
        for (let testIndex = from; testIndex < Math.min(testIds.length, from + 2000); testIndex++)
          rows.push(
            Object.fromEntries(
              columns.map((column, index) => [column, rowOf(run, runIndex, testIndex)[index]]),
            ),
          );
        await t.ctx.db
          .insertInto('testResults')
          .values(rows as never)
          .execute();
      }
    }
  }
  const seconds = (performance.now() - started) / 1000;
  // PostgreSQL's autovacuum would have analyzed the table by now; SQLite installs run no ANALYZE.
  if (!sqlite) await sql`analyze "testResults"`.execute(t.ctx.db);
  return { runs, seconds };
}

async function measure(database: 'sqlite' | 'postgres') {
  const t = await createTestApp({ database, env: { RATE_LIMIT_PER_MINUTE: '1000000000' } });
  try {
    // 20 real tests (the history route checks the test is the project's), among 10 000 ids.
    const real: string[] = [];
    for (let index = 0; index < 20; index++)
      real.push((await createTest(t, { name: `bench ${index}`, status: 'active' })).id);
    const testIds = [...real, ...Array.from({ length: testCount - real.length }, () => randomUUID())];
    const feature = { id: randomUUID(), name: 'feature' };
    const { seconds } = await seed(t, testIds, feature);
    const total = await t.ctx.db
      .selectFrom('testResults')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow();
    process.stdout.write(`${database}: seeded ${Number(total.n)} results in ${seconds.toFixed(1)} s\n`);

    const time = async (work: () => Promise<void>) => {
      const started = performance.now();
      await work();
      return performance.now() - started;
    };
    const get = async (url: string) => {
      const response = await t.api({ method: 'GET', url });
      if (response.statusCode !== 200) throw new Error(`${url}: ${response.statusCode} ${response.body}`);
      return response;
    };

    const historyUrl = (index: number) => `/v1/tests/${real[index % real.length]}/history?limit=20`;
    for (let index = 0; index < 50; index++) await get(historyUrl(index));
    const first = (await get(historyUrl(0))).json();
    if (first.pagination.total !== runCount) throw new Error(`history total ${first.pagination.total}`);
    const history: number[] = [];
    for (let index = 0; index < requests; index++)
      history.push(await time(async () => void (await get(historyUrl(index)))));
    const filtered: number[] = [];
    for (let index = 0; index < requests / 5; index++)
      filtered.push(
        await time(async () => void (await get(`${historyUrl(index)}&branch=main&status=failed`))),
      );

    // A branch run whose 100 tests all failed; their base results are in the seed.
    const triageRun = randomUUID();
    const now = new Date().toISOString();
    await t.ctx.db
      .insertInto('runs')
      .values(runRow(t, triageRun, now, feature, testIds.slice(0, 100)))
      .execute();
    const triageUrl = `/v1/test-runs/${triageRun}/triage`;
    for (let index = 0; index < 10; index++) await get(triageUrl);
    const counts = (await get(triageUrl)).json().data.counts;
    const triage: number[] = [];
    for (let index = 0; index < 100; index++)
      triage.push(await time(async () => void (await get(triageUrl))));

    // The same without HTTP (auth, serialization): what the service's own work costs.
    const scope = { organizationId: t.bootstrap.organizationId, projectId: t.bootstrap.projectId };
    const triageService: number[] = [];
    for (let index = 0; index < 100; index++)
      triageService.push(await time(async () => void (await t.app.history.triage(scope, triageRun))));

    const writes: number[] = [];
    const from = (index: number) => (100 * index) % (testIds.length - 100);
    for (let index = 0; index < 50; index++) {
      const runId = randomUUID();
      await t.ctx.db
        .insertInto('runs')
        .values(
          runRow(t, runId, new Date().toISOString(), feature, testIds.slice(from(index), from(index) + 100)),
        )
        .execute();
      writes.push(
        await time(async () => {
          const written = await t.app.history.record(runId);
          if (written !== 100) throw new Error(`recorded ${written} results, not 100`);
        }),
      );
    }

    // The runs just recorded left 5 000 tests' standing on the feature branch (named here, so
    // the route finds it: the seed's runs name a branch id only).
    await t.ctx.db
      .insertInto('branches')
      .values({
        id: feature.id,
        projectId: t.bootstrap.projectId,
        name: feature.name,
        sourceBranchId: null,
        createdAt: new Date().toISOString(),
      })
      .execute();
    const insightsUrl = `/v1/test-insights?branch=${feature.name}`;
    for (let index = 0; index < 10; index++) await get(insightsUrl);
    const insights: number[] = [];
    for (let index = 0; index < 100; index++)
      insights.push(await time(async () => void (await get(insightsUrl))));

    process.stdout.write(
      `${database}: GET history (page of 20, summary of 50), ${requests} requests: ${figures(history)}\n` +
        `${database}: GET history with branch and status filters, ${filtered.length} requests: ${figures(filtered)}\n` +
        `${database}: GET triage of a 100-test run (${JSON.stringify(counts)}), 100 requests: ${figures(triage)}\n` +
        `${database}: triage of the same run without HTTP, 100 calls: ${figures(triageService)}\n` +
        `${database}: writing a 100-test run's history (results, standing, rules), 50 runs: ${figures(writes)}\n` +
        `${database}: GET test-insights over 5 000 tests' standing, 100 requests: ${figures(insights)}\n` +
        `${database}: load average ${os
          .loadavg()
          .map((value) => value.toFixed(2))
          .join(' ')}\n`,
    );
  } finally {
    await t.close();
  }
}

try {
  const databases =
    values.database === 'both'
      ? (['sqlite', 'postgres'] as const)
      : [values.database as 'sqlite' | 'postgres'];
  for (const database of databases) await measure(database);
} finally {
  stopPostgres?.();
}
