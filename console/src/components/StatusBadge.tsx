import './StatusBadge.css';
/** A run's or a test's status as a coloured label (the word is always shown, not only the colour). */
export function StatusBadge({ status }: { status: string }) {
  return (
    <span className={`badge badge-${status}`} data-status={status}>
      {status}
    </span>
  );
}
