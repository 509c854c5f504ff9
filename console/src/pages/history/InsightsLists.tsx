import type { TestHealth } from '@stepdeck/contract';
import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { historyApi, historyKeys } from '../../api/history.ts';
import { ErrorMessage } from '../../components/ErrorMessage.tsx';
import { Ago } from '../../components/Timestamp.tsx';
import { useProjectScope } from '../../lib/scope.ts';
import { rate } from './rates.ts';
import './history.css';

/** The dashboard's flaky and failing tests of the branch, from each test's latest results. */
export function InsightsLists() {
  const scope = useProjectScope();
  const insights = useQuery({
    queryKey: historyKeys.insights(scope.projectId, scope.branchId),
    queryFn: () => historyApi.insights(scope),
  });
  const body = insights.data?.data;
  const historyPath = (testId: string) =>
    `/projects/${scope.projectId}/tests/${testId}/history${scope.branchQuery}`;
  if (insights.error)
    return <ErrorMessage error={insights.error} title="Could not load flaky and failing tests" />;
  if (!body) return null;
  return (
    <div className="leaders">
      <section aria-labelledby="flaky-heading">
        <h2 id="flaky-heading">Flaky tests on {body.branchName}</h2>
        {body.flaky.length ? (
          <HealthTable
            tests={body.flaky}
            historyPath={historyPath}
            column="Flake rate"
            value={(test) => `${rate(test.flakeRate)} of ${test.sampleSize}`}
          />
        ) : (
          <p>No flaky test in the latest results.</p>
        )}
      </section>
      <section aria-labelledby="broken-heading">
        <h2 id="broken-heading">Failing now on {body.branchName}</h2>
        {body.failing.length ? (
          <HealthTable
            tests={body.failing}
            historyPath={historyPath}
            column="Failing since"
            value={(test) => <Ago iso={test.failingSince?.createdAt} />}
          />
        ) : (
          <p>Every test passed in its latest result.</p>
        )}
        <p>
          <Link to={`/projects/${scope.projectId}/quarantine${scope.branchQuery}`}>
            Quarantine ({body.quarantined.length})
          </Link>
        </p>
      </section>
    </div>
  );
}

function HealthTable(props: {
  tests: TestHealth[];
  historyPath(testId: string): string;
  column: string;
  value(test: TestHealth): ReactNode;
}) {
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">Test</th>
          <th scope="col">{props.column}</th>
        </tr>
      </thead>
      <tbody>
        {props.tests.slice(0, 10).map((test) => (
          <tr key={test.testId}>
            <td>
              <Link to={props.historyPath(test.testId)}>{test.name}</Link>
            </td>
            <td>{props.value(test)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
