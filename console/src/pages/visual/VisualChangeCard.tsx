import type { VisualChange } from '@stepdeck/contract';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useId, useMemo, useState } from 'react';
import type { ProjectScope } from '../../api/client.ts';
import { visualApi } from '../../api/visual.ts';
import { Timestamp } from '../../components/Timestamp.tsx';

type Kind = 'baseline' | 'actual' | 'diff';
const kindLabel: Record<Kind, string> = { baseline: 'Baseline', actual: 'Actual', diff: 'Difference' };

/** The object URL of one picture, revoked when the card goes. */
function usePicture(scope: ProjectScope, path: string | null) {
  const picture = useQuery({
    queryKey: ['visual-image', path],
    queryFn: ({ signal }) => visualApi.image(scope, path as string, signal),
    enabled: path !== null,
    staleTime: Number.POSITIVE_INFINITY,
  });
  const url = useMemo(() => (picture.data ? URL.createObjectURL(picture.data) : undefined), [picture.data]);
  useEffect(() => () => (url ? URL.revokeObjectURL(url) : undefined), [url]);
  return { url, error: picture.error };
}

function Picture(props: { label: string; url: string | undefined; error: unknown; missing: string }) {
  return (
    <figure className="visual-picture">
      <figcaption>{props.label}</figcaption>
      {props.url ? (
        <img src={props.url} alt={props.label} />
      ) : (
        <p className="muted">{props.error ? 'Could not load the picture' : props.missing}</p>
      )}
    </figure>
  );
}

function decisionLabel(change: VisualChange) {
  if (change.decision === 'pending') return 'Pending review';
  return change.decision === 'approved' ? 'Approved' : 'Rejected';
}

/** One screenshot that is not its baseline: the three pictures, an overlay and its review. */
export function VisualChangeCard(props: {
  scope: ProjectScope;
  change: VisualChange;
  busy: boolean;
  onDecide(decision: 'approve' | 'reject'): void;
}) {
  const { change, scope } = props;
  const headingId = useId();
  const [reveal, setReveal] = useState(50);
  const pictures = {
    baseline: usePicture(scope, change.images.baseline),
    actual: usePicture(scope, change.images.actual),
    diff: usePicture(scope, change.images.diff),
  } satisfies Record<Kind, unknown>;
  const title = `${change.testName} › ${change.stepName}`;
  const percent = (change.ratio * 100).toFixed(2);
  return (
    <article className="visual-change" aria-labelledby={headingId}>
      <header>
        <h2 id={headingId}>{title}</h2>
        <span className={`visual-status visual-status-${change.status}`}>
          {change.status === 'new' ? 'New' : 'Changed'}
        </span>
        <span className={`visual-decision visual-decision-${change.decision}`}>{decisionLabel(change)}</span>
      </header>
      <p className="muted">
        {change.browser} · {change.viewport} ·{' '}
        {change.status === 'new' ? 'no baseline yet' : `${change.diffPixels} pixels differ (${percent} %)`}
        {change.decidedBy && change.decidedAt ? (
          <>
            {' '}
            · {decisionLabel(change).toLowerCase()} by {change.decidedBy} <Timestamp iso={change.decidedAt} />
          </>
        ) : null}
      </p>
      <div className="visual-pictures">
        {(['baseline', 'actual', 'diff'] as const).map((kind) => (
          <Picture
            key={kind}
            label={kindLabel[kind]}
            url={pictures[kind].url}
            error={pictures[kind].error}
            missing={kind === 'baseline' ? 'No baseline yet' : 'No picture'}
          />
        ))}
      </div>
      {pictures.baseline.url && pictures.actual.url ? (
        <div className="visual-overlay">
          <label>
            Overlay: actual over baseline{' '}
            <input
              type="range"
              min={0}
              max={100}
              value={reveal}
              onChange={(event) => setReveal(Number(event.target.value))}
              aria-valuetext={`${reveal} % of the actual screenshot shown`}
            />
          </label>
          <div className="visual-overlay-stack">
            <img src={pictures.baseline.url} alt="Baseline under the overlay" />
            <img
              src={pictures.actual.url}
              alt="Actual screenshot over the baseline"
              style={{ clipPath: `inset(0 ${100 - reveal}% 0 0)` }}
            />
          </div>
        </div>
      ) : null}
      {change.decision === 'pending' ? (
        <div className="row-actions">
          <button
            type="button"
            disabled={props.busy}
            onClick={() => props.onDecide('approve')}
            aria-label={`Approve ${title}`}
          >
            Approve
          </button>
          <button
            type="button"
            disabled={props.busy}
            onClick={() => props.onDecide('reject')}
            aria-label={`Reject ${title}`}
          >
            Reject
          </button>
        </div>
      ) : null}
    </article>
  );
}
