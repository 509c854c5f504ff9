import type { RunBatch, RunTestResult } from '@stepdeck/contract';
import { formatDuration } from '../lib/format.ts';
import { testsOfBatch } from '../lib/run-batches.ts';
import { StatusBadge } from './StatusBadge.tsx';
import './RunBatches.css';

/**
 * An orchestrated (split) run's batches: which runner slot took each, the tests it
 * ran and how they ended, its time and how many times it was claimed (2: its first runner died).
 */
export function RunBatches(props: { batches: readonly RunBatch[]; results: readonly RunTestResult[] }) {
  return (
    <section aria-labelledby="batches-heading">
      <h2 id="batches-heading">Shards</h2>
      <p className="muted">
        This run was split into {props.batches.length} batches that free runner slots took, longest first.
      </p>
      <div className="table-scroll">
        <table className="batches">
          <thead>
            <tr>
              <th scope="col">Batch</th>
              <th scope="col">Status</th>
              <th scope="col">Tests</th>
              <th scope="col">Runner slot</th>
              <th scope="col">Duration</th>
              <th scope="col">Attempts</th>
            </tr>
          </thead>
          <tbody>
            {props.batches.map((batch) => (
              <tr key={batch.position} data-testid="run-batch">
                <th scope="row">{batch.position + 1}</th>
                <td>
                  <StatusBadge status={batch.status} />
                </td>
                <td>
                  <ul className="batch-tests">
                    {testsOfBatch(batch, props.results).map((test) => (
                      <li key={test.testId}>
                        {test.name} {test.status ? <StatusBadge status={test.status} /> : null}
                      </li>
                    ))}
                  </ul>
                </td>
                <td className="worker" title={batch.worker ?? undefined}>
                  {batch.worker ?? '—'}
                </td>
                <td>
                  {formatDuration(batch.durationMs)}{' '}
                  <span className="muted">(expected {formatDuration(batch.expectedMs)})</span>
                </td>
                <td>{batch.attempts}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
