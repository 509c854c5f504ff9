import type { VisualChange } from '@stepdeck/contract';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useId, useMemo, useState } from 'react';
import type { ProjectScope } from '../../api/client.ts';
import { visualApi } from '../../api/visual.ts';
import { Timestamp } from '../../components/Timestamp.tsx';
import { type Zoom, ZoomControl, zoomedWidth, zoomFrameLabel } from './VisualZoom.tsx';

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

/**
 * A picture's frame: at a zoom past "fit" it scrolls, so it is a region named after its change
 * and picture that takes the keyboard focus (arrow keys scroll it; axe: scrollable-region-focusable).
 */
function ZoomFrame(props: { zoom: Zoom; label: string; children: React.ReactNode }) {
  if (props.zoom === 'fit') return <div className="visual-frame">{props.children}</div>;
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: focusable so the keyboard can scroll it
    <section className="visual-frame visual-frame-zoomed" aria-label={props.label} tabIndex={0}>
      {props.children}
    </section>
  );
}

function Picture(props: {
  label: string;
  url: string | undefined;
  error: unknown;
  missing: string;
  zoom: Zoom;
  width: number;
  title: string;
}) {
  const width = zoomedWidth(props.zoom, props.width);
  return (
    <figure className="visual-picture">
      <figcaption>{props.label}</figcaption>
      {props.url ? (
        <ZoomFrame zoom={props.zoom} label={zoomFrameLabel(props.zoom, `${props.title}: ${props.label}`)}>
          <img
            src={props.url}
            alt={props.label}
            className={width ? 'visual-zoomed' : undefined}
            style={width ? { width } : undefined}
          />
        </ZoomFrame>
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
  const [zoom, setZoom] = useState<Zoom>('fit');
  const overlayWidth = zoomedWidth(zoom, change.width);
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
      <ZoomControl value={zoom} onChange={setZoom} />
      <div className={`visual-pictures visual-pictures-${zoom === 'fit' ? 'fit' : 'zoomed'}`}>
        {(['baseline', 'actual', 'diff'] as const).map((kind) => (
          <Picture
            key={kind}
            label={kindLabel[kind]}
            url={pictures[kind].url}
            error={pictures[kind].error}
            missing={kind === 'baseline' ? 'No baseline yet' : 'No picture'}
            zoom={zoom}
            width={change.width}
            title={title}
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
          <ZoomFrame zoom={zoom} label={zoomFrameLabel(zoom, `${title}: Overlay`)}>
            <div
              className={`visual-overlay-stack${overlayWidth ? ' visual-zoomed' : ''}`}
              style={overlayWidth ? { width: overlayWidth } : undefined}
            >
              <img src={pictures.baseline.url} alt="Baseline under the overlay" />
              <img
                src={pictures.actual.url}
                alt="Actual screenshot over the baseline"
                style={{ clipPath: `inset(0 ${100 - reveal}% 0 0)` }}
              />
            </div>
          </ZoomFrame>
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
