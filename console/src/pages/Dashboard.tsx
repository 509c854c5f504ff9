import { terminalRunStatuses } from '@stepdeck/contract';
import { useQueries, useQuery } from '@tanstack/react-query';
import { parseISO } from 'date-fns';
import { useMemo } from 'react';
import { Link } from 'react-router';
import { api } from '../api/endpoints.ts';
import { Chart } from '../components/Chart.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { Ago } from '../components/Timestamp.tsx';
import { dayOf, formatDuration, percent } from '../lib/format.ts';
import { runsPerDay, testLeaders } from '../lib/run-state.ts';
import { useProjectScope } from '../lib/scope.ts';
import { InsightsLists } from './history/InsightsLists.tsx';
import './Dashboard.css';

/**
 * A day's point sits at its noon (uPlot's time scale counts seconds), so the chart's range of
 * half a day either side spans exactly the days shown.
 */
const dayMiddle = (day: { day: string }) => parseISO(day.day).getTime() / 1000 + 43_200;

/** How many recent runs the charts and the test tables look at. */
const recentRuns = 100;
const reportRuns = 20;

export default function DashboardPage() {
  const scope = useProjectScope();
  const stats = useQuery({
    queryKey: ['stats', scope.projectId, scope.branchId],
    queryFn: () => api.stats(scope),
  });
  const runs = useQuery({
    queryKey: ['runs', scope.projectId, scope.branchId, { limit: recentRuns }],
    queryFn: () => api.runs(scope, { limit: recentRuns, page: 0, branchId: scope.branchId }),
  });
  const finished = (runs.data?.data ?? [])
    .filter((run) => terminalRunStatuses.includes(run.status) && run.status !== 'cancelled')
    .slice(0, reportRuns);
  const details = useQueries({
    queries: finished.map((run) => ({
      queryKey: ['run', scope.projectId, scope.branchId, run.id],
      queryFn: () => api.run(scope, run.id),
      staleTime: Number.POSITIVE_INFINITY,
    })),
  });
  const reports = details.flatMap((detail) =>
    detail.data?.data.report ? [{ testResults: detail.data.data.report.runTypeInfo.testResults }] : [],
  );
  const leaders = testLeaders(reports);
  const days = useMemo(() => runsPerDay(runs.data?.data ?? [], dayOf), [runs.data]);
  const runsChart = useMemo(() => {
    const x = days.map(dayMiddle);
    return {
      data: [x, days.map((day) => day.total), days.map((day) => day.failed)] as [
        number[],
        number[],
        number[],
      ],
      series: [
        { label: 'Runs', stroke: '#1f5fbf' },
        { label: 'Failed', stroke: '#b3261e' },
      ],
    };
  }, [days]);
  const durationChart = useMemo(() => {
    const x = days.map(dayMiddle);
    return {
      data: [x, days.map((day) => (day.avgDurationMs === null ? null : day.avgDurationMs / 1000))] as [
        number[],
        Array<number | null>,
      ],
      series: [{ label: 'Mean duration (s)', stroke: '#6b3fa0' }],
    };
  }, [days]);
  const totals = stats.data?.data;
  return (
    <section aria-labelledby="dashboard-heading" className="dashboard">
      <h1 id="dashboard-heading">Dashboard</h1>
      {stats.error ? <ErrorMessage error={stats.error} title="Could not load statistics" /> : null}
      {totals ? (
        <dl className="tiles">
          <div>
            <dt>Runs</dt>
            <dd>{totals.totalRuns}</dd>
          </div>
          <div>
            <dt>Success rate</dt>
            <dd>{totals.totalRuns === 0 ? '—' : percent(totals.successRate)}</dd>
          </div>
          <div>
            {/* The API's mean is over completed runs (0 when there is none): say so, not "0 ms". */}
            <dt>Mean duration (completed runs)</dt>
            <dd>{totals.avgDuration === 0 ? '—' : formatDuration(totals.avgDuration)}</dd>
          </div>
          <div>
            <dt>Tests passed / failed</dt>
            <dd>
              {totals.passed} / {totals.failed}
            </dd>
          </div>
          <div>
            <dt>Last run</dt>
            <dd>
              <Ago iso={totals.lastRun} />
            </dd>
          </div>
        </dl>
      ) : null}
      {runs.error ? <ErrorMessage error={runs.error} title="Could not load runs" /> : null}
      {days.length ? (
        <div className="charts">
          <Chart
            title={`Runs per day (last ${recentRuns} runs)`}
            summary={days.map((day) => `${day.day}: ${day.total} runs, ${day.failed} failed`).join('; ')}
            data={runsChart.data}
            series={runsChart.series}
            yLabel="runs"
            yWhole
          />
          <Chart
            title="Mean run duration per day"
            summary={days.map((day) => `${day.day}: ${formatDuration(day.avgDurationMs)}`).join('; ')}
            data={durationChart.data}
            series={durationChart.series}
            yLabel="seconds"
          />
        </div>
      ) : null}
      <InsightsLists />
      <div className="leaders">
        <section aria-labelledby="failing-heading">
          <h2 id="failing-heading">Most failing tests (last {reportRuns} runs)</h2>
          {leaders.failing.length ? (
            <table>
              <thead>
                <tr>
                  <th scope="col">Test</th>
                  <th scope="col">Failures</th>
                </tr>
              </thead>
              <tbody>
                {leaders.failing.map((test) => (
                  <tr key={test.name}>
                    <td>
                      <TestLink scope={scope} name={test.name} testId={test.testId} />
                    </td>
                    <td>
                      {test.failures} of {test.runs}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <p>No failures.</p>
          )}
        </section>
        <section aria-labelledby="slowest-heading">
          <h2 id="slowest-heading">Slowest tests (last {reportRuns} runs)</h2>
          {leaders.slowest.length ? (
            <table>
              <thead>
                <tr>
                  <th scope="col">Test</th>
                  <th scope="col">Mean duration</th>
                </tr>
              </thead>
              <tbody>
                {leaders.slowest.map((test) => (
                  <tr key={test.name}>
                    <td>
                      <TestLink scope={scope} name={test.name} testId={test.testId} />
                    </td>
                    <td>{formatDuration(test.avgMs)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <p>No finished runs yet.</p>
          )}
        </section>
      </div>
    </section>
  );
}

/** A test's name, linked to the test when the report says which stored test it is. */
function TestLink(props: {
  scope: ReturnType<typeof useProjectScope>;
  name: string;
  testId: string | undefined;
}) {
  if (!props.testId) return <>{props.name}</>;
  return (
    <Link to={`/projects/${props.scope.projectId}/tests/${props.testId}${props.scope.branchQuery}`}>
      {props.name}
    </Link>
  );
}
