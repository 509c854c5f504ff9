import type { QuarantinedTest } from '@stepdeck/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { historyApi, historyKeys } from '../../api/history.ts';
import { ErrorMessage } from '../../components/ErrorMessage.tsx';
import { Timestamp } from '../../components/Timestamp.tsx';
import { usePermissions } from '../../lib/permissions.ts';
import { useProjectScope } from '../../lib/scope.ts';
import { rate } from './rates.ts';
import './history.css';

/**
 * The project's quarantined tests, each with the evidence of its way out (passes since it went
 * in, and how sure that is), and the latest quarantine changes, by people and by the rules.
 */
export function QuarantinePage() {
  const scope = useProjectScope();
  const insights = useQuery({
    queryKey: historyKeys.insights(scope.projectId, scope.branchId),
    queryFn: () => historyApi.insights(scope),
  });
  const body = insights.data?.data;
  const historyPath = (testId: string) =>
    `/projects/${scope.projectId}/tests/${testId}/history${scope.branchQuery}`;
  return (
    <section aria-labelledby="quarantine-heading" className="quarantine-page">
      <h1 id="quarantine-heading">Quarantine</h1>
      <p>
        A quarantined test keeps running and being reported, but the GitHub Action and the CLI do not fail on
        it. It leaves quarantine by hand, when its expiry passes, or by itself once it passes reliably: when
        the lower bound of its pass rate since it went in (95 % Wilson interval) reaches the release
        threshold.
      </p>
      {body ? (
        <p>
          {body.autoQuarantineAt === null
            ? 'Automatic quarantine is off on this install (its administrator sets QUARANTINE_FLAKE_RATE).'
            : `Tests whose flake rate reaches ${rate(body.autoQuarantineAt)} are quarantined automatically.`}
        </p>
      ) : null}
      {insights.error ? <ErrorMessage error={insights.error} title="Could not load the quarantine" /> : null}
      {body?.quarantined.length ? (
        <QuarantinedTable tests={body.quarantined} historyPath={historyPath} />
      ) : body ? (
        <p className="empty">No test is in quarantine. Quarantine a flaky test from its history page.</p>
      ) : null}
      <h2>Latest changes</h2>
      {body?.quarantineEvents.length ? (
        <ul className="quarantine-events">
          {body.quarantineEvents.map((event) => (
            <li key={`${event.testId}-${event.createdAt}-${event.kind}`}>
              <Timestamp iso={event.createdAt} />:{' '}
              <Link to={historyPath(event.testId)}>{event.name ?? event.testId}</Link>{' '}
              {event.kind === 'quarantined' ? 'put in quarantine' : 'released'} by {event.actor}
              {event.automatic ? ' (automatic)' : ''}: {event.reason}
            </li>
          ))}
        </ul>
      ) : body ? (
        <p>No quarantine changes yet.</p>
      ) : null}
    </section>
  );
}

function QuarantinedTable(props: { tests: QuarantinedTest[]; historyPath(testId: string): string }) {
  const scope = useProjectScope();
  const permissions = usePermissions();
  const queryClient = useQueryClient();
  const release = useMutation({
    mutationFn: (testId: string) => historyApi.release(scope, testId),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: historyKeys.all(scope.projectId) }),
  });
  return (
    <>
      {release.error ? <ErrorMessage error={release.error} title="Could not release the test" /> : null}
      <table className="history-table">
        <thead>
          <tr>
            <th scope="col">Test</th>
            <th scope="col">Reason</th>
            <th scope="col">Since</th>
            <th scope="col">Way out</th>
            {permissions.can('quarantine') ? <th scope="col">Actions</th> : null}
          </tr>
        </thead>
        <tbody>
          {props.tests.map((test) => {
            const name = test.name ?? test.testId;
            const { evidence } = test;
            return (
              <tr key={test.testId}>
                <td>
                  <Link to={props.historyPath(test.testId)}>{name}</Link>
                </td>
                <td>
                  {test.quarantine.reason}
                  <br />
                  <small>
                    by {test.quarantine.createdBy}
                    {test.quarantine.owner ? `, owner ${test.quarantine.owner}` : ''}
                  </small>
                </td>
                <td>
                  <Timestamp iso={test.quarantine.createdAt} />
                  {test.quarantine.expiresAt ? (
                    <>
                      <br />
                      <small>
                        expires <Timestamp iso={test.quarantine.expiresAt} />
                      </small>
                    </>
                  ) : null}
                </td>
                <td className="evidence">
                  {evidence.results === 0
                    ? 'No results since it went in.'
                    : `${evidence.passes} of ${evidence.results} passed since.`}{' '}
                  <meter
                    min={0}
                    max={1}
                    value={evidence.passRateLowerBound ?? 0}
                    aria-label={`Pass rate at worst ${rate(evidence.passRateLowerBound)}, released at ${rate(evidence.releaseAt)}`}
                  />{' '}
                  {evidence.results === 0
                    ? `Released once its pass rate, at worst, reaches ${rate(evidence.releaseAt)}.`
                    : `Pass rate at worst ${rate(evidence.passRateLowerBound)}; released at ${rate(evidence.releaseAt)}.`}
                </td>
                {permissions.can('quarantine') ? (
                  <td>
                    <button
                      type="button"
                      onClick={() => release.mutate(test.testId)}
                      disabled={release.isPending}
                      aria-label={`Release ${name}`}
                    >
                      Release
                    </button>
                  </td>
                ) : null}
              </tr>
            );
          })}
        </tbody>
      </table>
    </>
  );
}
