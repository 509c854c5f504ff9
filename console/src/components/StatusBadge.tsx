import './StatusBadge.css';

/** Statuses whose wire name is not a word: `notRun` reads "not run". */
const words: Record<string, string> = { notRun: 'not run', timedOut: 'timed out' };

/** A status in words, as a badge shows it: `failed`, `not run`. */
export const statusLabel = (status: string): string => words[status] ?? status;

/** A run's or a test's status as a coloured label (the word is always shown, not only the colour). */
export function StatusBadge({ status }: { status: string }) {
  return (
    <span className={`badge badge-${status}`} data-status={status}>
      {statusLabel(status)}
    </span>
  );
}
