import type { TestHistoryEntry } from '@stepdeck/contract';
import { Link } from 'react-router';
import { statusLabel } from '../../components/StatusBadge.tsx';
import { formatTimestamp } from '../../lib/format.ts';

/**
 * A test's latest results as a row of squares, oldest first, each a link to its run. The
 * colour repeats the status, which each square's accessible name says in words.
 */
export function StatusStrip(props: { results: TestHistoryEntry[]; runPath(runId: string): string }) {
  return (
    <nav aria-label={`Latest ${props.results.length} results, oldest first`} className="status-strip">
      <ol>
        {props.results.map((result) => (
          <li key={result.runId}>
            <Link
              to={props.runPath(result.runId)}
              className={`strip-${result.status}`}
              aria-label={`${statusLabel(result.status)}, ${formatTimestamp(result.createdAt)}`}
              title={`${statusLabel(result.status)}, ${formatTimestamp(result.createdAt)}`}
            />
          </li>
        ))}
      </ol>
    </nav>
  );
}
