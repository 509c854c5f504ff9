import { type ResolvedRunConfig, resolveRunConfig, type TestRunDetail } from '@stepdeck/contract';
import { useQuery } from '@tanstack/react-query';
import type { ProjectScope } from '../api/client.ts';
import { api } from '../api/endpoints.ts';
import { parseMetadata } from '../lib/run-state.ts';

type Config = Record<string, unknown>;

const playwrightUse = (config: Config | null | undefined): Record<string, unknown> =>
  (config?.use as Record<string, unknown> | undefined) ?? {};

/** The browser environment a run set, in words; header values and credentials are not shown. */
function environmentFacts(environment: ResolvedRunConfig['environment']): string[] {
  const facts: string[] = [];
  if (environment.device) facts.push(environment.device);
  if (environment.locale) facts.push(`locale ${environment.locale}`);
  if (environment.timezoneId) facts.push(`time zone ${environment.timezoneId}`);
  if (environment.colorScheme) facts.push(`${environment.colorScheme} colour scheme`);
  if (environment.geolocation)
    facts.push(`at ${environment.geolocation.latitude}, ${environment.geolocation.longitude}`);
  if (environment.permissions?.length) facts.push(`permissions: ${environment.permissions.join(', ')}`);
  if (environment.offline) facts.push('offline');
  if (environment.extraHTTPHeaders)
    facts.push(`headers: ${Object.keys(environment.extraHTTPHeaders).join(', ')}`);
  if (environment.httpCredentials) facts.push(`HTTP credentials for ${environment.httpCredentials.username}`);
  return facts;
}

/**
 * What a run ran with: the test's own configuration with the run's overrides on top (as the
 * service merges them), each value with where it came from, then the overrides as sent. For a
 * directory or tag each test keeps its own base URL unless the run set one: the tests' are listed.
 */
export function RunConfigFacts({ scope, detail }: { scope: ProjectScope; detail: TestRunDetail }) {
  const target = parseMetadata(detail.metadata).target;
  const targetId = target?.type === 'test' || target?.type === 'directory' ? target.id : undefined;
  const test = useQuery({
    queryKey: ['tests', scope.projectId, scope.branchId, 'detail', targetId],
    queryFn: () => api.test(scope, targetId as string),
    enabled: Boolean(targetId),
    staleTime: 60_000,
    retry: false,
  });
  const overrides = detail.config ?? {};
  const own = test.data?.test.directory ? null : (test.data?.test.config ?? null);
  const effective = resolveRunConfig(own, overrides);
  const sourceOf = (key: keyof ResolvedRunConfig['use']) =>
    playwrightUse(overrides)[key] !== undefined
      ? 'set by this run'
      : playwrightUse(own)[key] !== undefined
        ? "the test's"
        : 'default';
  const childBaseUrls = test.data?.test.directory
    ? [...new Set(test.data.children.map((child) => String(playwrightUse(child.config).baseURL ?? 'none')))]
    : [];
  const byTest = target?.type !== 'test' && playwrightUse(overrides).baseURL === undefined;
  return (
    <section aria-labelledby="config-heading" className="run-config-facts">
      <h2 id="config-heading">Config</h2>
      <dl className="facts">
        <dt>Base URL</dt>
        <dd data-testid="effective-base-url">
          {byTest ? (
            childBaseUrls.length ? (
              <>
                each test&apos;s own: <code>{childBaseUrls.join(', ')}</code>
              </>
            ) : (
              "each test's own"
            )
          ) : (
            <>
              <code>{effective.use.baseURL ?? 'none'}</code>{' '}
              <span className="muted">({test.isPending && targetId ? '…' : sourceOf('baseURL')})</span>
            </>
          )}
        </dd>
        <dt>Browser</dt>
        <dd>
          {effective.use.browserName} <span className="muted">({sourceOf('browserName')})</span>
        </dd>
        <dt>Retries, timeout</dt>
        <dd>
          {effective.retries} retries, {effective.timeout} ms per test
        </dd>
        <dt>Viewport</dt>
        <dd>
          {effective.environment.device && !effective.viewportSet
            ? `the device's (${effective.environment.device})`
            : `${effective.viewport.width} × ${effective.viewport.height}`}
        </dd>
        {environmentFacts(effective.environment).length > 0 && (
          <>
            <dt>Browser environment</dt>
            <dd>{environmentFacts(effective.environment).join(' · ')}</dd>
          </>
        )}
      </dl>
      <details className="config">
        <summary>Overrides sent with the run (JSON)</summary>
        <pre>{JSON.stringify(overrides, null, 2)}</pre>
      </details>
    </section>
  );
}
