import type { RunArtifact, RunTestResult, TriageClass } from '@stepdeck/contract';
import { artifactUrl } from '../api/endpoints.ts';
import { formatDuration } from '../lib/format.ts';
import { artifactsOfTest, isFailure, retriesOf } from '../lib/run-state.ts';
import { LocatorSuggestions } from './LocatorSuggestions.tsx';
import { StatusBadge } from './StatusBadge.tsx';
import { VitalsTable } from './VitalsTable.tsx';
import './TestResultCard.css';

/** What each triage class means, as the label's tooltip (the label's text is the class). */
const triageMeaning: Record<TriageClass, string> = {
  new: 'Not failing on the base branch: new here',
  known: 'Failing the same way on the base branch',
  flaky: 'Flaky in its recent runs',
  quarantined: 'In quarantine: does not fail the action or CLI',
};

/** One test of a run: outcome, the failure in the user's words, screenshots, video and trace. */
export function TestResultCard(props: {
  runId: string;
  result: RunTestResult;
  artifacts: readonly RunArtifact[];
  onOpenTrace(key: string): void;
}) {
  const { runId, result } = props;
  const own = artifactsOfTest(props.artifacts, result.name);
  const failed = isFailure(result);
  // The test's error is shown once, at the top of the card (where Playwright's HTML report shows
  // it); the step that raised it is only marked failed in the step tree.
  const shownAbove = (error: string) =>
    Boolean(result.errorMessage?.includes(error.trim()) || result.errorDetail?.includes(error.trim()));
  const headingId = `test-${result.testId}-${result.name}`.replace(/[^A-Za-z0-9_-]/g, '-');
  return (
    <section
      className={`test-card ${failed ? 'test-failed' : ''}`}
      aria-labelledby={headingId}
      data-testid="test-result"
    >
      <header>
        <h3 id={headingId}>{result.name}</h3>
        {/* Passed only with a suggested locator: shown as healed, never as a plain pass. */}
        <StatusBadge
          status={result.healed?.length && result.status === 'passed' ? 'healed' : result.status}
        />
        {result.flaky ? <span className="badge badge-flaky">flaky</span> : null}
        {/* Where the failure stands across runs: a word, not a colour, named for screen readers. */}
        {result.triage ? (
          <span
            className={`badge triage triage-${result.triage}`}
            title={triageMeaning[result.triage]}
            data-testid="triage"
          >
            <span className="visually-hidden">Failure triage: </span>
            {result.triage}
          </span>
        ) : null}
        <span className="muted">
          {formatDuration(result.duration)}
          {retriesOf(result)
            ? ` · ${retriesOf(result)} ${retriesOf(result) === 1 ? 'retry' : 'retries'}`
            : ''}
        </span>
        {own.trace ? (
          <button type="button" onClick={() => props.onOpenTrace(own.trace?.key as string)}>
            Open trace
          </button>
        ) : null}
      </header>
      {result.errorMessage ? (
        <div className="failure">
          {result.failedStep ? (
            <p>
              <strong>Failing step:</strong>{' '}
              {[...result.failedStep.path].join(' › ') || result.failedStep.name}
              {result.failedStep.action ? <code> {result.failedStep.action}</code> : null}
            </p>
          ) : result.errorLocation ? (
            <p>
              <strong>Failing step:</strong> {result.errorLocation}
            </p>
          ) : null}
          <pre className="error-message">{result.errorMessage}</pre>
          {result.locatorSuggestions ? (
            <LocatorSuggestions
              runId={runId}
              testId={result.testId}
              suggestions={result.locatorSuggestions}
            />
          ) : null}
          {result.expected != null || result.received != null ? (
            <dl className="expect">
              <dt>Expected</dt>
              <dd>
                <code>{result.expected ?? '—'}</code>
              </dd>
              <dt>Received</dt>
              <dd>
                <code>{result.received ?? '—'}</code>
              </dd>
            </dl>
          ) : null}
          {result.errorDetail ? (
            <details>
              <summary>Playwright's error</summary>
              <pre>{result.errorDetail}</pre>
            </details>
          ) : null}
        </div>
      ) : null}
      {result.steps?.length ? (
        <details open={failed}>
          <summary>Steps</summary>
          <ol className="steps">
            {result.steps.map((step, index) => (
              <li
                // biome-ignore lint/suspicious/noArrayIndexKey: steps have no unique key; their order is fixed
                key={index}
                style={{ marginLeft: `${step.depth * 1.25}rem` }}
                data-status={step.status}
              >
                <StatusBadge status={step.healed ? 'healed' : step.status} /> {step.name}
                {step.action ? <code> {step.action}</code> : null}{' '}
                {step.healed ? (
                  <span>
                    {' '}
                    passed with <code>{step.healed.locator}</code>{' '}
                  </span>
                ) : null}
                <span className="muted">{formatDuration(step.duration)}</span>
                {step.error && shownAbove(step.error) ? (
                  <span className="muted"> (the error above)</span>
                ) : step.error ? (
                  <pre className="error-message">{step.error}</pre>
                ) : null}
              </li>
            ))}
          </ol>
        </details>
      ) : null}
      {result.vitals?.length ? (
        <VitalsTable testName={result.name} vitals={result.vitals} steps={result.steps ?? []} />
      ) : null}
      {own.images.length ? (
        <div className="screenshots">
          {own.images.map((image) => (
            <a key={image.key} href={artifactUrl(runId, image.key)} target="_blank" rel="noreferrer">
              <img
                src={artifactUrl(runId, image.key)}
                alt={`Screenshot of ${result.name}: ${image.label}`}
                loading="lazy"
              />
            </a>
          ))}
        </div>
      ) : null}
      {own.videos.map((video) => (
        // biome-ignore lint/a11y/useMediaCaption: test recordings have no speech to caption
        <video
          key={video.key}
          controls
          preload="metadata"
          src={artifactUrl(runId, video.key)}
          aria-label={`Video of ${result.name}`}
        />
      ))}
    </section>
  );
}
