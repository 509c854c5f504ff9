import type { LocatorSuggestions as Suggestions } from '@stepdeck/contract';
import { useMutation, useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, sessionKey } from '../api/endpoints.ts';
import { useProjectScope } from '../lib/scope.ts';
import { ErrorMessage } from './ErrorMessage.tsx';

const matchesText = (count: number) => `${count} ${count === 1 ? 'match' : 'matches'} now`;

/**
 * Under a failure whose locator found nothing (or several): the page's closest elements, best
 * first, with how many elements each finds now, and "Use this locator", which puts it into the
 * step in the test's working revision (admins and owners, who may change tests).
 */
export function LocatorSuggestions(props: { runId: string; testId: string; suggestions: Suggestions }) {
  const { runId, testId, suggestions } = props;
  const { projectId, branchQuery } = useProjectScope();
  const session = useQuery({ queryKey: sessionKey, queryFn: api.session, staleTime: 60_000 });
  const role = session.data?.data.role;
  const mayChange = role === 'owner' || role === 'admin';
  const apply = useMutation({
    mutationFn: (selector: string) => api.applyLocatorSuggestion(runId, testId, suggestions.stepId, selector),
  });
  const headingId = `suggestions-${testId}-${suggestions.stepId}`.replace(/[^A-Za-z0-9_-]/g, '-');
  const applied = apply.data?.data;
  return (
    <section className="locator-suggestions" aria-labelledby={headingId}>
      <h4 id={headingId}>
        {suggestions.problem === 'many' ? 'Several elements match' : 'No element for'}{' '}
        <code>{suggestions.fromLocator}</code> (step {suggestions.step})
      </h4>
      {suggestions.suggestions.length === 0 ? (
        <p className="muted">Nothing on the page looked like it when the step failed.</p>
      ) : (
        <>
          <p className="muted">Closest elements on the page when the step failed, best first:</p>
          <ol>
            {suggestions.suggestions.map((suggestion) => (
              <li key={suggestion.selector}>
                <code>{suggestion.locator}</code>{' '}
                <span className="muted">
                  {matchesText(suggestion.matches)} · score {suggestion.score.toFixed(2)}
                </span>{' '}
                {mayChange ? (
                  <button
                    type="button"
                    disabled={apply.isPending || applied !== undefined}
                    aria-label={`Use this locator: ${suggestion.locator}`}
                    onClick={() => apply.mutate(suggestion.selector)}
                  >
                    Use this locator
                  </button>
                ) : null}
              </li>
            ))}
          </ol>
          {!mayChange && role ? (
            <p className="muted">Admins and owners can put a suggestion into the test.</p>
          ) : null}
        </>
      )}
      {applied ? (
        <p role="status">
          Step {suggestions.step} now uses <code>{applied.selector}</code> in the test's working revision
          (unsaved). <Link to={`/projects/${projectId}/tests/${testId}${branchQuery}`}>Open the test</Link>
        </p>
      ) : null}
      {apply.error ? <ErrorMessage error={apply.error} title="The locator was not applied" /> : null}
    </section>
  );
}
