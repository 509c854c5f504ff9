import type { TestRunDetail } from '@stepdeck/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type MouseEvent, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { ApiError } from '../api/client.ts';
import { api } from '../api/endpoints.ts';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { NotFoundPage } from '../components/NotFound.tsx';
import { RunBatches } from '../components/RunBatches.tsx';
import { RunConfigFacts } from '../components/RunConfigFacts.tsx';
import { StatusBadge } from '../components/StatusBadge.tsx';
import { TestResultCard } from '../components/TestResultCard.tsx';
import { Timestamp } from '../components/Timestamp.tsx';
import { TraceViewerDialog } from '../components/TraceViewerDialog.tsx';
import { formatDuration } from '../lib/format.ts';
import { runQuery } from '../lib/prefetch.ts';
import { failedFirst, isActive, parseMetadata, triggerLabel } from '../lib/run-state.ts';
import { runsOfTestPath, useProjectScope } from '../lib/scope.ts';
import './RunPage.css';

/** `/console/projects/:projectId/runs/:runId`: the page every link to a run points to. */
export function RunPage() {
  const { runId } = useParams();
  const scope = useProjectScope();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [trace, setTrace] = useState<{ key: string; testName: string } | undefined>();
  const runOptions = runQuery(scope, runId as string);
  const runQueryKey = runOptions.queryKey;
  const run = useQuery({
    ...runOptions,
    // Live status: poll while the run moves, stop once it is terminal.
    refetchInterval: (query) => {
      const status = query.state.data?.data.status;
      return status && isActive(status) ? 1000 : false;
    },
  });
  const status = run.data?.data.status;
  const artifacts = useQuery({
    queryKey: ['artifacts', runId, status],
    queryFn: () => api.artifacts(scope, runId as string),
    enabled: status !== undefined && !isActive(status),
  });
  const cancel = useMutation({
    mutationFn: () => api.cancel(scope, runId as string),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: runQueryKey }),
  });
  const runAgain = useMutation({
    mutationFn: async () => {
      const detail = run.data?.data;
      if (!detail) throw new Error('The run is not loaded yet');
      const target = parseMetadata(detail.metadata).target;
      if (!target?.id) throw new Error('This run does not record what it ran, so it cannot be run again');
      return target.type === 'tag'
        ? api.runTag(scope, target.id, detail.config, detail.environment)
        : api.runTest(scope, target.id, detail.config, detail.environment);
    },
    onSuccess: (started) =>
      navigate(`/projects/${scope.projectId}/runs/${started.data.runId}${scope.branchQuery}`),
  });

  if (run.error instanceof ApiError && (run.error.status === 404 || run.error.status === 400))
    return <NotFoundPage what="Run" />;
  if (run.error) return <ErrorMessage error={run.error} title="Could not load the run" />;
  if (!run.data) return <p role="status">Loading run…</p>;

  const detail = run.data.data;
  const metadata = parseMetadata(detail.metadata);
  const report = detail.report;
  const results = failedFirst(report?.runTypeInfo.testResults ?? []);
  const stats = detail.stats ?? report?.runTypeInfo.stats;
  const runnerError = report?.runTypeInfo.runnerError;
  return (
    <article className="run-page">
      <p className="crumbs">
        <Link to={`/projects/${scope.projectId}/runs${scope.branchQuery}`}>Runs</Link> / {detail.name}
      </p>
      <header className="run-header">
        <h1>{detail.name}</h1>
        <output aria-live="polite" aria-label="Run status">
          <StatusBadge status={detail.status} />
        </output>
        <div className="actions">
          {isActive(detail.status) ? (
            <button type="button" onClick={() => cancel.mutate()} disabled={cancel.isPending}>
              Cancel
            </button>
          ) : null}
          <button type="button" onClick={() => runAgain.mutate()} disabled={runAgain.isPending}>
            Run again
          </button>
          {report ? (
            <a
              href={`/v1/test-runs/${detail.id}/report`}
              onClick={(event) => openReport(event, scope, detail.id)}
            >
              HTML report
            </a>
          ) : null}
          {report?.visualChanges?.length ? (
            <Link to={`/projects/${scope.projectId}/runs/${detail.id}/visual${scope.branchQuery}`}>
              Review visual changes ({report.visualChanges.length})
            </Link>
          ) : null}
        </div>
      </header>
      {cancel.error ? <ErrorMessage error={cancel.error} title="Could not cancel" /> : null}
      {runAgain.error ? <ErrorMessage error={runAgain.error} title="Could not start the run" /> : null}
      <dl className="facts">
        <dt>Trigger</dt>
        <dd>
          {triggerLabel(metadata, report?.scheduleName)}
          {detail.scheduleId ? (
            <>
              {' '}
              (
              <Link
                to={`/projects/${scope.projectId}/runs?scheduleId=${detail.scheduleId}${scope.branchId ? `&branch=${scope.branchId}` : ''}`}
              >
                runs of this schedule
              </Link>
              )
            </>
          ) : null}
        </dd>
        <dt>Target</dt>
        <dd>
          <RunTarget scope={scope} detail={detail} />
        </dd>
        <dt>Branch</dt>
        <dd>{detail.branchName ?? detail.branchId}</dd>
        {detail.environment ? (
          <>
            <dt>Environment</dt>
            <dd>{detail.environment}</dd>
          </>
        ) : null}
        <dt>Created</dt>
        <dd>
          <Timestamp iso={detail.createdAt} />
        </dd>
        <dt>Started</dt>
        <dd>
          <Timestamp iso={detail.startedAt} />
        </dd>
        <dt>Finished</dt>
        <dd>
          <Timestamp iso={detail.completedAt} />
        </dd>
        <dt>Duration</dt>
        <dd>{formatDuration(detail.duration)}</dd>
        <dt>Tests</dt>
        <dd>
          {stats
            ? `${stats.passed} passed, ${stats.failed} failed, ${stats.skipped} skipped of ${stats.total}`
            : '—'}
        </dd>
        {metadata.leftOut ? (
          <>
            <dt>Left out</dt>
            <dd>
              {metadata.leftOut.tests.some((test) => test.reason === 'browser not installed')
                ? `${metadata.leftOut.count} not run (drafts, archived tests and tests on a browser not installed on this service):`
                : `${metadata.leftOut.count} not active (drafts and archived tests are not run):`}{' '}
              {metadata.leftOut.tests.map((test, index) => (
                <span key={test.testId}>
                  {index > 0 ? ', ' : ''}
                  <Link to={`/projects/${scope.projectId}/tests/${test.testId}${scope.branchQuery}`}>
                    {test.name}
                  </Link>{' '}
                  (
                  {test.reason === 'browser not installed'
                    ? `${test.browser ?? 'browser'} not installed`
                    : test.status}
                  )
                </span>
              ))}
              {metadata.leftOut.count > metadata.leftOut.tests.length ? ', …' : ''}
            </dd>
          </>
        ) : null}
        {metadata.plan ? (
          <>
            <dt>Batches</dt>
            <dd>{metadata.plan.reason}</dd>
          </>
        ) : null}
      </dl>
      <RunConfigFacts scope={scope} detail={detail} />
      {runnerError ? (
        <ErrorMessage error={new Error(runnerError)} title="The runner reported an error" />
      ) : null}
      <section aria-labelledby="tests-heading">
        <h2 id="tests-heading">Tests</h2>
        {results.length === 0 ? (
          <p>{isActive(detail.status) ? 'Results appear when the run finishes.' : 'No test results.'}</p>
        ) : (
          results.map((result, index) => (
            <TestResultCard
              // biome-ignore lint/suspicious/noArrayIndexKey: repeatEach reports one test several times; the report's order is fixed
              key={`${result.testId}-${index}`}
              runId={detail.id}
              result={result}
              artifacts={artifacts.data?.data ?? []}
              onOpenTrace={(key) => setTrace({ key, testName: result.name })}
            />
          ))
        )}
      </section>
      {detail.batches?.length ? <RunBatches batches={detail.batches} results={results} /> : null}
      <section aria-labelledby="artifacts-heading">
        <h2 id="artifacts-heading">Artifacts</h2>
        {artifacts.error ? <ErrorMessage error={artifacts.error} title="Could not list artifacts" /> : null}
        {artifacts.data?.data.length ? (
          <ul className="artifacts">
            {artifacts.data.data.map((artifact) => (
              <li key={artifact.key}>
                <a href={artifact.url} download>
                  {artifact.label}
                </a>{' '}
                <span className="muted">({artifact.type})</span>
              </li>
            ))}
          </ul>
        ) : (
          <p>{isActive(detail.status) ? 'Artifacts appear when the run finishes.' : 'No artifacts.'}</p>
        )}
      </section>
      {trace ? (
        <TraceViewerDialog
          runId={detail.id}
          artifactKey={trace.key}
          testName={trace.testName}
          onClose={() => setTrace(undefined)}
        />
      ) : null}
    </article>
  );
}

/** The report route needs the project header, so it is fetched and shown from a blob URL. */
async function openReport(
  event: MouseEvent<HTMLAnchorElement>,
  scope: { projectId: string; branchId?: string | undefined },
  runId: string,
) {
  event.preventDefault();
  const opened = window.open('', '_blank');
  const headers: Record<string, string> = { 'x-project-id': scope.projectId };
  if (scope.branchId) headers['x-branch-id'] = scope.branchId;
  const response = await fetch(`/v1/test-runs/${runId}/report`, { headers, credentials: 'same-origin' });
  const html = await response.text();
  const url = URL.createObjectURL(new Blob([html], { type: 'text/html' }));
  if (opened) opened.location.href = url;
  else window.location.href = url;
}

/** What the run ran: a test links to its editor and its runs; a directory to its runs. */
function RunTarget({ scope, detail }: { scope: ReturnType<typeof useProjectScope>; detail: TestRunDetail }) {
  const target = parseMetadata(detail.metadata).target;
  if (!target) return <>{detail.name}</>;
  const name = target.name ?? detail.name;
  const runsOf = target.id ? runsOfTestPath(scope, target.id) : undefined;
  return (
    <>
      {target.type}{' '}
      {target.type === 'test' && target.id ? (
        <Link to={`/projects/${scope.projectId}/tests/${target.id}${scope.branchQuery}`}>{name}</Link>
      ) : (
        `“${name}”`
      )}
      {runsOf && target.type !== 'tag' ? (
        <>
          {' '}
          (<Link to={runsOf}>its runs</Link>)
        </>
      ) : null}
    </>
  );
}
