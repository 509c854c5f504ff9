// Benchmark of the bundled action (dist/index.js) against the real service:
// - cold start: `node dist/index.js` exiting at input parsing vs `node -e 0` (median of 10 each,
//   interleaved so both see the same machine load);
// - for a ~10 s and a ~60 s run with poll-interval-seconds 5: how long after the run's terminal
//   state (completedAt on the service) the action saw it and exited, and how many API requests
//   it sent (counted by a small proxy between the action and the service).
// Run with `npm run build` done first: `node scripts/bench-action.mjs`.
import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { cleanupRunners, ensureDist, root, runAction, startService, startSite } from '../test/e2e/harness.ts';

const pollSeconds = 5;
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

function timeProcess(args, env) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { cwd: root, env, stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', (code) => resolve({ ms: performance.now() - started, code }));
  });
}

async function coldStart() {
  const entry = ensureDist();
  const base = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(INPUT_|GITHUB_|ACTIONS_|STATE_)/.test(name)),
  );
  // Invalid inputs: the action exits at input parsing (exit code 1, `::error::`).
  const env = { ...base, 'INPUT_API-KEY': 'sd_bench', 'INPUT_BASE-URL': 'not a url' };
  const action = [];
  const baseline = [];
  for (let i = 0; i < 10; i++) {
    const run = await timeProcess([entry], env);
    if (run.code !== 1) throw new Error(`dist/index.js exited with ${run.code}, expected 1`);
    action.push(run.ms);
    baseline.push((await timeProcess(['-e', '0'], base)).ms);
  }
  return { action: median(action), baseline: median(baseline) };
}

/** A proxy in front of the service recording every request the action sends. */
async function countingProxy(target) {
  const requests = [];
  const server = http.createServer((request, response) => {
    requests.push({ at: Date.now(), method: request.method, path: request.url });
    const upstream = http.request(
      new URL(request.url ?? '/', target),
      { method: request.method, headers: request.headers },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    upstream.on('error', () => {
      response.statusCode = 502;
      response.end();
    });
    request.pipe(upstream);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}

async function timedRun(service, site, testId, label) {
  const proxy = await countingProxy(service.url);
  const spawnedAt = Date.now();
  const result = await runAction(
    {
      'api-key': service.apiKey,
      'base-url': proxy.url,
      'project-id': service.projectId,
      'test-ids': testId,
      'target-url': site.url,
      config: JSON.stringify({ timeout: 180_000 }),
      'poll-interval-seconds': String(pollSeconds),
      'timeout-minutes': '10',
      'pr-comment': 'off',
      wait: 'true',
      artifacts: 'all',
      summary: 'true',
      annotations: 'true',
    },
    { GITHUB_WORKFLOW: 'bench', GITHUB_JOB: label },
  );
  await proxy.close();
  if (result.code !== 0) throw new Error(`${label}: the action failed:\n${result.stdout}`);
  const runId = result.outputs['run-id'];
  const run = (await service.api('GET', `/v1/test-runs/${runId}`)).json.data;
  const completedAt = Date.parse(run.completedAt);
  const polls = proxy.requests.filter(
    (request) => request.method === 'GET' && request.path === `/v1/test-runs/${runId}`,
  );
  const lastPoll = polls.at(-1)?.at ?? Number.NaN;
  return {
    label,
    status: run.status,
    runMs: run.duration,
    firstRequestMs: (proxy.requests[0]?.at ?? Number.NaN) - spawnedAt,
    detectedMs: lastPoll - completedAt,
    exitMs: result.exitedAt - completedAt,
    requests: proxy.requests.length,
    polls: polls.length,
    byPath: proxy.requests.reduce((counts, request) => {
      const key = `${request.method} ${request.path.replace(/[0-9a-f-]{36}/g, ':id')}`;
      counts[key] = (counts[key] ?? 0) + 1;
      return counts;
    }, {}),
  };
}

const cold = await coldStart();
console.log(
  `cold start (median of 10): node dist/index.js to the input error ${cold.action.toFixed(0)} ms, node -e 0 ${cold.baseline.toFixed(0)} ms, ratio ${(cold.action / cold.baseline).toFixed(2)}, overhead ${(cold.action - cold.baseline).toFixed(0)} ms (target ≤ 200 ms)`,
);

const [service, site] = await Promise.all([startService(), startSite()]);
try {
  const waitTest = (ms) => ({
    name: `bench wait ${ms / 1000} s`,
    steps: [
      { name: 'open', action: { name: 'goto', url: '/' } },
      { name: 'wait', action: { name: 'wait', ms } },
    ],
  });
  const short = await service.createTest(waitTest(10_000));
  const long = await service.createTest(waitTest(60_000));
  // Side by side (the default concurrency cap is 2): each action has its own counting proxy.
  const results = await Promise.all([
    timedRun(service, site, short, '10s'),
    timedRun(service, site, long, '60s'),
  ]);
  for (const r of results) {
    const other = r.requests - r.polls;
    console.log(
      `${r.label} run (${r.status}, ${(r.runMs / 1000).toFixed(1)} s on the service): seen ${(r.detectedMs / 1000).toFixed(2)} s after completedAt (poll interval ${pollSeconds} s, within one interval: ${r.detectedMs <= pollSeconds * 1000 ? 'yes' : 'NO'}), exit ${(r.exitMs / 1000).toFixed(2)} s after completedAt; first request ${r.firstRequestMs} ms after spawn; ${r.requests} API requests: ${r.polls} polls (1 request per poll) + ${other} others ${JSON.stringify(r.byPath)}`,
    );
  }
} finally {
  cleanupRunners();
  await Promise.all([service.stop(), site.close()]);
}
console.log(
  `(machine: ${path.basename(process.execPath)} ${process.version}, load average ${(await import('node:os'))
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')})`,
);
