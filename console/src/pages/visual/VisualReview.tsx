import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { ApiError } from '../../api/client.ts';
import { visualApi } from '../../api/visual.ts';
import { ErrorMessage } from '../../components/ErrorMessage.tsx';
import { NotFoundPage } from '../../components/NotFound.tsx';
import { useProjectScope } from '../../lib/scope.ts';
import { VisualChangeCard } from './VisualChangeCard.tsx';
import './VisualReview.css';

/**
 * `/console/projects/:projectId/runs/:runId/visual`: the screenshots of a run that are not their
 * baseline. Approving one makes it its branch's baseline; rejecting keeps the step failing.
 */
export function VisualReviewPage() {
  const { runId } = useParams();
  const scope = useProjectScope();
  const queryClient = useQueryClient();
  const queryKey = ['visual-changes', scope.projectId, scope.branchId, runId];
  const changes = useQuery({ queryKey, queryFn: () => visualApi.changes(scope, runId as string) });
  const decide = useMutation({
    mutationFn: (input: { decision: 'approve' | 'reject'; changeIds?: string[] }) =>
      visualApi.decide(scope, runId as string, input.decision, input.changeIds),
    onSuccess: () => queryClient.invalidateQueries({ queryKey }),
  });

  const runLink = `/projects/${scope.projectId}/runs/${runId}${scope.branchQuery}`;
  if (changes.error instanceof ApiError && (changes.error.status === 404 || changes.error.status === 400))
    return <NotFoundPage what="Run" />;
  const list = changes.data?.data ?? [];
  const summary = changes.data?.summary;
  return (
    <article className="visual-review">
      <p className="crumbs">
        <Link to={`/projects/${scope.projectId}/runs${scope.branchQuery}`}>Runs</Link> /{' '}
        <Link to={runLink}>Run</Link> / Visual changes
      </p>
      <header className="visual-review-header">
        <h1>Visual changes</h1>
        {summary && summary.pending > 0 ? (
          <button
            type="button"
            disabled={decide.isPending}
            onClick={() => decide.mutate({ decision: 'approve' })}
          >
            Approve all ({summary.pending})
          </button>
        ) : null}
      </header>
      {summary ? (
        <p className="muted" role="status">
          {summary.new} new, {summary.changed} changed, {summary.pending} waiting for review
        </p>
      ) : null}
      {decide.error ? <ErrorMessage error={decide.error} title="Could not record the review" /> : null}
      {changes.error ? (
        <ErrorMessage error={changes.error} title="Could not load the visual changes" />
      ) : null}
      {!changes.data && !changes.error ? <p role="status">Loading visual changes…</p> : null}
      {changes.data && list.length === 0 ? (
        <div className="muted empty-state">
          <p>No visual changes in this run.</p>
          <p>
            Every screenshot matched its baseline, or the run has no screenshot steps.{' '}
            <Link to={runLink}>Back to the run</Link>
          </p>
        </div>
      ) : null}
      {list.map((change) => (
        <VisualChangeCard
          key={change.id}
          scope={scope}
          change={change}
          busy={decide.isPending}
          onDecide={(decision) => decide.mutate({ decision, changeIds: [change.id] })}
        />
      ))}
    </article>
  );
}
