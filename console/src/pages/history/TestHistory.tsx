import type { HistoryStatus, TestHistoryEntry } from '@stepdeck/contract';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { parseISO } from 'date-fns';
import { useMemo } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { ApiError } from '../../api/client.ts';
import { api } from '../../api/endpoints.ts';
import { historyApi, historyKeys } from '../../api/history.ts';
import { Chart } from '../../components/Chart.tsx';
import { ErrorMessage } from '../../components/ErrorMessage.tsx';
import { NotFoundPage } from '../../components/NotFound.tsx';
import { StatusBadge } from '../../components/StatusBadge.tsx';
import { Timestamp } from '../../components/Timestamp.tsx';
import { formatDuration } from '../../lib/format.ts';
import { usePermissions } from '../../lib/permissions.ts';
import { useProjectScope } from '../../lib/scope.ts';
import { QuarantineControls } from './QuarantineControls.tsx';
import { rate } from './rates.ts';
import { StatusStrip } from './StatusStrip.tsx';
import './history.css';

const pageSize = 25;
const statuses: HistoryStatus[] = ['passed', 'failed', 'flaky', 'skipped'];

/**
 * One test's results across runs: where it stands (pass and flake rate, failing since, p50/p95
 * duration), a strip of its latest results, its durations, and every result with its run,
 * branch, commit and failure. The quarantine is shown and changed here.
 */
export function TestHistoryPage() {
  const scope = useProjectScope();
  const { testId = '' } = useParams();
  const [search, setSearch] = useSearchParams();
  const page = Number(search.get('page') ?? '0') || 0;
  const status = statuses.find((value) => value === search.get('status'));
  const query = { limit: pageSize, page, status, branch: scope.branchId, window: 50 };
  const test = useQuery({
    queryKey: ['test', scope.projectId, testId],
    queryFn: () => api.test(scope, testId),
  });
  const history = useQuery({
    queryKey: historyKeys.test(scope.projectId, testId, query),
    queryFn: () => historyApi.history(scope, testId, query),
    placeholderData: keepPreviousData,
  });
  // The strip and the chart show the latest 50 whatever the list's filter and page.
  const latest = useQuery({
    queryKey: historyKeys.test(scope.projectId, testId, { latest: 50, branch: scope.branchId }),
    queryFn: () => historyApi.history(scope, testId, { limit: 50, page: 0, branch: scope.branchId }),
  });
  const permissions = usePermissions();
  const name = test.data?.test.name ?? 'Test';
  const body = history.data;
  const summary = body?.summary;
  const chronological = useMemo(() => [...(latest.data?.data ?? [])].reverse(), [latest.data]);

  if (test.error instanceof ApiError && test.error.status === 404) return <NotFoundPage what="Test" />;
  const setFilter = (next: { status?: string; page?: number }) => {
    const params = new URLSearchParams(search);
    if (next.status !== undefined) {
      if (next.status) params.set('status', next.status);
      else params.delete('status');
      params.delete('page');
    }
    if (next.page !== undefined) params.set('page', String(next.page));
    setSearch(params);
  };
  const runPath = (runId: string) => `/projects/${scope.projectId}/runs/${runId}${scope.branchQuery}`;
  return (
    <section aria-labelledby="history-heading" className="test-history">
      <header className="history-header">
        <h1 id="history-heading">History of “{name}”</h1>
        <nav aria-label="This test" className="history-links">
          <Link to={`/projects/${scope.projectId}/tests/${testId}${scope.branchQuery}`}>Edit the test</Link>
          <Link to={`/projects/${scope.projectId}/quarantine${scope.branchQuery}`}>Quarantined tests</Link>
        </nav>
      </header>
      {test.error ? <ErrorMessage error={test.error} title="Could not load the test" /> : null}
      {history.error ? <ErrorMessage error={history.error} title="Could not load its history" /> : null}
      {body?.quarantine ? (
        <p className="quarantine-note" role="note">
          <strong>In quarantine</strong> since <Timestamp iso={body.quarantine.createdAt} />, by{' '}
          {body.quarantine.createdBy}: {body.quarantine.reason}
          {body.quarantine.owner ? ` (owner: ${body.quarantine.owner})` : ''}
          {body.quarantine.expiresAt ? (
            <>
              {' '}
              Expires <Timestamp iso={body.quarantine.expiresAt} />.
            </>
          ) : null}
        </p>
      ) : null}
      {body ? (
        <QuarantineControls
          scope={scope}
          testId={testId}
          testName={name}
          quarantine={body.quarantine}
          canChange={permissions.can('quarantine')}
        />
      ) : null}
      {summary ? (
        <dl className="history-tiles">
          <div>
            <dt>Pass rate (latest {summary.runs})</dt>
            <dd>{rate(summary.passRate)}</dd>
          </div>
          <div>
            <dt>Flake rate</dt>
            <dd>{rate(summary.flakeRate)}</dd>
          </div>
          <div>
            <dt>Failing since</dt>
            <dd>
              {summary.failingSince ? (
                <Link to={runPath(summary.failingSince.runId)}>
                  <Timestamp iso={summary.failingSince.createdAt} />
                  {summary.failingSince.commitSha ? ` (${summary.failingSince.commitSha.slice(0, 7)})` : ''}
                </Link>
              ) : (
                'not failing'
              )}
            </dd>
          </div>
          <div>
            <dt>Duration p50 / p95</dt>
            <dd>
              {formatDuration(summary.durationP50)} / {formatDuration(summary.durationP95)}
            </dd>
          </div>
        </dl>
      ) : null}
      {summary?.durationTrend || summary?.stepShifts.length ? (
        <section aria-labelledby="trends-heading" className="trends">
          <h2 id="trends-heading">How its duration moved</h2>
          {summary.durationTrend ? (
            <p>
              Median {formatDuration(summary.durationTrend.recentP50)} over the latest 5 results,{' '}
              {formatDuration(summary.durationTrend.earlierP50)} before.
            </p>
          ) : null}
          {summary.stepShifts.length ? (
            <ul>
              {summary.stepShifts.map((shift) => (
                <li key={shift.stepId}>
                  Step {shift.position}: {formatDuration(shift.before)} → {formatDuration(shift.after)}
                  {shift.since ? (
                    <>
                      {' '}
                      since the run of{' '}
                      <Link to={runPath(shift.since.runId)}>
                        <Timestamp iso={shift.since.createdAt} />
                      </Link>
                    </>
                  ) : null}
                </li>
              ))}
            </ul>
          ) : null}
        </section>
      ) : null}
      {chronological.length ? (
        <>
          <StatusStrip results={chronological} runPath={runPath} />
          <DurationChart results={chronological} />
        </>
      ) : history.isSuccess ? (
        <p className="empty">
          No results yet: this test's results appear here once it has run (from the editor, a schedule, the
          GitHub Action or the CLI).
        </p>
      ) : null}
      {/* With no result at all, the empty state above says it: no filter to offer. */}
      {chronological.length || status ? (
        <div className="history-filters">
          <label htmlFor="history-status">Status</label>
          <select
            id="history-status"
            value={status ?? ''}
            onChange={(event) => setFilter({ status: event.currentTarget.value })}
          >
            <option value="">Any</option>
            {statuses.map((value) => (
              <option key={value}>{value}</option>
            ))}
          </select>
        </div>
      ) : null}
      {body?.data.length ? (
        <ResultsTable results={body.data} runPath={runPath} />
      ) : body && status ? (
        <p>No {status} results.</p>
      ) : null}
      {body && body.pagination.totalPages > 1 ? (
        <nav aria-label="Pages of results" className="pager">
          <button type="button" disabled={page === 0} onClick={() => setFilter({ page: page - 1 })}>
            Newer
          </button>
          <span>
            Page {page + 1} of {body.pagination.totalPages}
          </span>
          <button
            type="button"
            disabled={!body.pagination.hasMore}
            onClick={() => setFilter({ page: page + 1 })}
          >
            Older
          </button>
        </nav>
      ) : null}
    </section>
  );
}

function ResultsTable(props: { results: TestHistoryEntry[]; runPath(runId: string): string }) {
  return (
    <table className="history-table">
      <thead>
        <tr>
          <th scope="col">When</th>
          <th scope="col">Status</th>
          <th scope="col">Duration</th>
          <th scope="col">Branch</th>
          <th scope="col">Commit</th>
          <th scope="col">Started by</th>
          <th scope="col">Failure</th>
        </tr>
      </thead>
      <tbody>
        {props.results.map((result) => (
          <tr key={result.runId}>
            <td>
              <Link to={props.runPath(result.runId)}>
                <Timestamp iso={result.createdAt} />
              </Link>
            </td>
            <td>
              <StatusBadge status={result.status} />
              {result.attempts > 1 ? <span className="attempts"> ({result.attempts} attempts)</span> : null}
            </td>
            <td>{formatDuration(result.duration)}</td>
            <td>{result.ref ?? result.branchName}</td>
            <td>
              {result.commitSha ? <code>{result.commitSha.slice(0, 7)}</code> : '—'}
              {result.pullRequest ? ` PR #${result.pullRequest}` : ''}
              {result.label ? ` ${result.label}` : ''}
            </td>
            <td>{triggerWords[result.trigger] ?? result.trigger}</td>
            <td className="failure">{result.errorMessage ?? ''}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const triggerWords: Record<string, string> = { apiKey: 'API key', schedule: 'schedule', manual: 'console' };

function DurationChart(props: { results: TestHistoryEntry[] }) {
  const data = useMemo(
    () =>
      [
        props.results.map((result) => parseISO(result.createdAt).getTime() / 1000),
        props.results.map((result) => (result.status === 'skipped' ? null : result.duration / 1000)),
      ] as [number[], Array<number | null>],
    [props.results],
  );
  return (
    <Chart
      title={`Duration of the latest ${props.results.length} results`}
      summary={props.results
        .map((result) => `${result.createdAt}: ${result.status}, ${formatDuration(result.duration)}`)
        .join('; ')}
      data={data}
      series={[{ label: 'Duration (s)', stroke: '#6b3fa0' }]}
      yLabel="seconds"
    />
  );
}
