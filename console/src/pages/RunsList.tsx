import { runStatus, type TestRun, type TestRunListQuery } from '@stepdeck/contract';
import { keepPreviousData, useQueries, useQuery } from '@tanstack/react-query';
import type { FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { api } from '../api/endpoints.ts';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { StatusBadge } from '../components/StatusBadge.tsx';
import { Timestamp } from '../components/Timestamp.tsx';
import { formatDuration } from '../lib/format.ts';
import { isActive, parseMetadata, refreshInterval, triggerLabel } from '../lib/run-state.ts';
import { useProjectScope } from '../lib/scope.ts';

const pageSize = 20;
/** The API's filters, kept in the URL so a filtered list can be linked. */
const filterNames = ['status', 'name', 'testId', 'scheduleId', 'startDate', 'endDate'] as const;

export function RunsListPage() {
  const scope = useProjectScope();
  const [search, setSearch] = useSearchParams();
  const page = Number(search.get('page') ?? '0') || 0;
  // The branch switcher's branch (when not the default) filters the list; otherwise all branches.
  const query: Partial<TestRunListQuery> = { limit: pageSize, page, branchId: scope.branchId };
  for (const name of filterNames) {
    const value = search.get(name);
    if (value) Object.assign(query, { [name]: value });
  }
  const runs = useQuery({
    queryKey: ['runs', scope.projectId, scope.branchId, query],
    queryFn: () => api.runs(scope, query),
    placeholderData: keepPreviousData,
    // Live refresh while any listed run is still moving.
    refetchInterval: (q) => refreshInterval(q.state.data?.data.map((run) => run.status) ?? [], 2000),
  });
  // The list's items carry neither the counts nor who started a run: each listed run's detail
  // does (fetched once per status, so a finished run is read once).
  const listed = runs.data?.data ?? [];
  const details = useQueries({
    queries: listed.map((run) => ({
      queryKey: ['run-row', scope.projectId, scope.branchId, run.id, run.status],
      queryFn: () => api.run(scope, run.id),
      staleTime: Number.POSITIVE_INFINITY,
    })),
  });
  const detailOf = new Map(
    details.flatMap((detail) => (detail.data ? [[detail.data.data.id, detail.data.data]] : [])),
  );
  const tests = useQuery({
    queryKey: ['tests', scope.projectId, scope.branchId],
    queryFn: () => api.tests(scope),
  });
  const schedules = useQuery({
    queryKey: ['schedules', scope.projectId],
    queryFn: () => api.schedules(scope.projectId),
  });

  const applyFilters = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const next = new URLSearchParams();
    const branch = search.get('branch');
    if (branch) next.set('branch', branch);
    for (const name of filterNames) {
      const value = String(form.get(name) ?? '').trim();
      if (value) next.set(name, value);
    }
    setSearch(next);
  };
  const goToPage = (target: number) => {
    const next = new URLSearchParams(search);
    next.set('page', String(target));
    setSearch(next);
  };
  const total = runs.data?.pagination.total ?? 0;
  const filtered = filterNames.some((name) => search.get(name));
  const lastPage = Math.max(0, Math.ceil(total / pageSize) - 1);
  return (
    <section aria-labelledby="runs-heading">
      <h1 id="runs-heading">Runs</h1>
      <form
        className="filters"
        onSubmit={applyFilters}
        aria-label="Filter runs"
        // Re-created when the URL changes (back, a shared link): the fields show its filters.
        key={search.toString()}
      >
        <div className="field">
          <label htmlFor="filter-status">Status</label>
          <select id="filter-status" name="status" defaultValue={search.get('status') ?? ''}>
            <option value="">any</option>
            {runStatus.options.map((status) => (
              <option key={status}>{status}</option>
            ))}
          </select>{' '}
        </div>
        <div className="field">
          <label htmlFor="filter-name">Name</label>
          <input id="filter-name" name="name" type="search" defaultValue={search.get('name') ?? ''} />{' '}
        </div>
        <div className="field">
          <label htmlFor="filter-testId">Test or directory</label>
          {/* Re-created, alone, when its options arrive: a select's default value only takes once
              its option exists (a reloaded filtered link); a name typed meanwhile stays. */}
          <select
            id="filter-testId"
            name="testId"
            key={String(tests.isSuccess)}
            defaultValue={search.get('testId') ?? ''}
          >
            <option value="">any</option>
            {(tests.data?.children ?? []).map((test) => (
              <option key={test.id} value={test.id}>
                {test.directory ? `${test.name}/` : test.name}
              </option>
            ))}
          </select>{' '}
        </div>
        <div className="field">
          <label htmlFor="filter-scheduleId">Schedule</label>
          <select
            id="filter-scheduleId"
            name="scheduleId"
            key={String(schedules.isSuccess)}
            defaultValue={search.get('scheduleId') ?? ''}
          >
            <option value="">any</option>
            {(schedules.data?.data ?? []).map((schedule) => (
              <option key={schedule.id} value={schedule.id}>
                {schedule.name}
              </option>
            ))}
          </select>{' '}
        </div>
        <div className="field">
          <label htmlFor="filter-startDate">From date</label>
          <input
            id="filter-startDate"
            name="startDate"
            type="date"
            defaultValue={search.get('startDate') ?? ''}
          />{' '}
        </div>
        <div className="field">
          <label htmlFor="filter-endDate">To date</label>
          <input
            id="filter-endDate"
            name="endDate"
            type="date"
            defaultValue={search.get('endDate') ?? ''}
          />{' '}
        </div>
        <button type="submit">Apply filters</button>
      </form>
      {runs.error ? <ErrorMessage error={runs.error} title="Could not list runs" /> : null}
      {runs.data && total === 0 ? (
        filtered ? (
          <p role="status">
            No runs match these filters.{' '}
            <Link to={`/projects/${scope.projectId}/runs${scope.branchQuery}`}>Show all runs</Link>
          </p>
        ) : (
          <p role="status">
            No runs on this branch yet. A run starts from the{' '}
            <Link to={`/projects/${scope.projectId}/tests${scope.branchQuery}`}>Tests</Link> page, the API, a
            schedule or the GitHub Action.
          </p>
        )
      ) : runs.data ? (
        <>
          <table className="runs">
            <caption className="muted">
              {total} {total === 1 ? 'run' : 'runs'}
            </caption>
            <thead>
              <tr>
                <th scope="col">Run</th>
                <th scope="col">Status</th>
                <th scope="col">Tests</th>
                <th scope="col">Trigger</th>
                <th scope="col">Branch</th>
                <th scope="col">Created</th>
                <th scope="col">Duration</th>
              </tr>
            </thead>
            <tbody>
              {runs.data.data.map((run) => (
                <tr key={run.id}>
                  <td>
                    <Link to={`/projects/${scope.projectId}/runs/${run.id}${scope.branchQuery}`}>
                      {run.name}
                    </Link>
                    {run.scheduleType ? <span className="muted"> (schedule)</span> : null}
                  </td>
                  <td>
                    <StatusBadge status={run.status} />
                  </td>
                  <td>
                    <RunCounts run={run} detail={detailOf.get(run.id)} />
                  </td>
                  <td>
                    {detailOf.get(run.id)
                      ? triggerLabel(
                          parseMetadata(detailOf.get(run.id)?.metadata ?? null),
                          detailOf.get(run.id)?.report?.scheduleName,
                        )
                      : run.scheduleType
                        ? 'schedule'
                        : '…'}
                  </td>
                  <td>{run.branchName}</td>
                  <td>
                    <Timestamp iso={run.createdAt} />
                  </td>
                  <td>{formatDuration(run.duration)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <nav aria-label="Pages" className="pager">
            <button type="button" disabled={page <= 0} onClick={() => goToPage(page - 1)}>
              Previous page
            </button>
            <span>
              Page {page + 1} of {lastPage + 1}
            </span>
            <button type="button" disabled={page >= lastPage} onClick={() => goToPage(page + 1)}>
              Next page
            </button>
          </nav>
        </>
      ) : runs.isPending ? (
        <p role="status">Loading runs…</p>
      ) : null}
    </section>
  );
}

type RunDetail = Awaited<ReturnType<typeof api.run>>['data'];

/** `3 passed, 1 failed of 4`: what a finished run's tests did (skipped ones only when there are). */
function RunCounts({ run, detail }: { run: TestRun; detail: RunDetail | undefined }) {
  if (isActive(run.status)) return <span className="muted">running…</span>;
  const stats = detail?.stats ?? detail?.report?.runTypeInfo.stats;
  if (!detail) return <span className="muted">…</span>;
  if (!stats) return <>—</>;
  const parts = [`${stats.passed} passed`, `${stats.failed} failed`];
  if (stats.skipped) parts.push(`${stats.skipped} skipped`);
  return (
    <span className={stats.failed ? 'counts counts-failed' : 'counts'}>
      {parts.join(', ')} of {stats.total}
    </span>
  );
}
