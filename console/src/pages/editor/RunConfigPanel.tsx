import { resolveRunConfig, runConfig } from '@stepdeck/contract';
import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { api } from '../../api/endpoints.ts';
import { BrowserEnvironmentFields } from './BrowserEnvironmentFields.tsx';

/**
 * The test's run configuration (the spec's fields): empty means the default, shown as the
 * placeholder; the contract's limits are checked as you type and named on the field.
 */
const defaults = resolveRunConfig();
const choices = {
  browserName: ['chromium', 'webkit', 'firefox'],
  trace: ['off', 'on', 'retain-on-failure', 'on-first-retry'],
  video: ['off', 'on', 'retain-on-failure', 'on-first-retry'],
  screenshot: ['off', 'on', 'only-on-failure'],
} as const;
/** The fields' names in words (the config's keys are Playwright's). */
const choiceLabels: Record<keyof typeof choices, string> = {
  browserName: 'Browser',
  trace: 'Trace',
  video: 'Video',
  screenshot: 'Screenshot',
};
const numberFields: Array<{ path: string[]; label: string; fallback: number }> = [
  {
    path: ['use', 'actionTimeout'],
    label: 'Action timeout (ms, 0 = 60000)',
    fallback: defaults.use.actionTimeout,
  },
  {
    path: ['use', 'navigationTimeout'],
    label: 'Navigation timeout (ms, 0 = none)',
    fallback: defaults.use.navigationTimeout,
  },
  { path: ['timeout'], label: 'Test timeout (ms)', fallback: defaults.timeout },
  { path: ['retries'], label: 'Retries', fallback: defaults.retries },
  { path: ['repeatEach'], label: 'Repeat each', fallback: defaults.repeatEach },
  { path: ['workers'], label: 'Workers', fallback: defaults.workers },
  { path: ['viewport', 'width'], label: 'Viewport width (px)', fallback: defaults.viewport.width },
  { path: ['viewport', 'height'], label: 'Viewport height (px)', fallback: defaults.viewport.height },
];

function read(config: Record<string, unknown>, path: string[]): unknown {
  let value: unknown = config;
  for (const key of path)
    value = value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  return value;
}

function write(config: Record<string, unknown>, path: string[], value: unknown): Record<string, unknown> {
  const [head, ...rest] = path as [string, ...string[]];
  const next = { ...config };
  if (rest.length === 0) {
    if (value === undefined) delete next[head];
    else next[head] = value;
    return next;
  }
  const inner = write((next[head] as Record<string, unknown>) ?? {}, rest, value);
  if (Object.keys(inner).length === 0) delete next[head];
  else next[head] = inner;
  return next;
}

export function RunConfigPanel(props: {
  config: Record<string, unknown>;
  onChange(config: Record<string, unknown>): void;
  /** The fold's title: the test's own configuration, or a run's override. */
  summary?: string;
}) {
  const id = useId();
  // The service names the browsers whose builds are not installed, and how to install them.
  const organization = useQuery({ queryKey: ['organization'], queryFn: api.organization, staleTime: 60_000 });
  const absentBrowsers = new Map(
    (organization.data?.data.browsers ?? [])
      .filter((browser) => !browser.available)
      .map((browser) => [browser.name as string, browser.reason ?? 'not installed']),
  );
  const result = runConfig.safeParse(props.config);
  const errors = new Map<string, string>();
  if (!result.success)
    for (const issue of result.error.issues) errors.set(issue.path.join('.'), issue.message);
  const set = (path: string[], value: unknown) => props.onChange(write(props.config, path, value));
  const errorOf = (path: string[]) => errors.get(path.join('.'));
  return (
    <details className="run-config">
      <summary>{props.summary ?? 'Run configuration'}</summary>
      <div className="field">
        <label htmlFor={`${id}-baseURL`}>Base URL</label>
        <input
          id={`${id}-baseURL`}
          value={String(read(props.config, ['use', 'baseURL']) ?? '')}
          placeholder="none"
          onChange={(event) => set(['use', 'baseURL'], event.target.value || undefined)}
        />
      </div>
      {(Object.keys(choices) as Array<keyof typeof choices>).map((key) => (
        <div className="field" key={key}>
          <label htmlFor={`${id}-${key}`}>{choiceLabels[key]}</label>
          <select
            id={`${id}-${key}`}
            aria-describedby={
              key === 'browserName' && absentBrowsers.size > 0 ? `${id}-browserName-hint` : undefined
            }
            value={String(read(props.config, ['use', key]) ?? '')}
            onChange={(event) => set(['use', key], event.target.value || undefined)}
          >
            <option value="">default ({String(defaults.use[key])})</option>
            {(choices[key] as readonly string[]).map((choice) => {
              const missing = key === 'browserName' && absentBrowsers.has(choice);
              return (
                <option key={choice} value={choice} disabled={missing}>
                  {missing ? `${choice} (not installed)` : choice}
                </option>
              );
            })}
          </select>
          {key === 'browserName' && absentBrowsers.size > 0 ? (
            <small id={`${id}-browserName-hint`} className="muted field-hint">
              {[...absentBrowsers].map(([name, reason]) => `${name}: ${reason}`).join(' · ')}
            </small>
          ) : null}
        </div>
      ))}
      {numberFields.map((field) => {
        const fieldId = `${id}-${field.path.join('-')}`;
        const error = errorOf(field.path);
        const value = read(props.config, field.path);
        return (
          <div className="field" key={fieldId}>
            <label htmlFor={fieldId}>{field.label}</label>
            <input
              id={fieldId}
              type="number"
              placeholder={String(field.fallback)}
              value={value === undefined ? '' : String(value)}
              aria-invalid={error ? true : undefined}
              aria-describedby={error ? `${fieldId}-error` : undefined}
              onChange={(event) =>
                set(field.path, event.target.value === '' ? undefined : Number(event.target.value))
              }
            />
            {error ? (
              <span id={`${fieldId}-error`} className="field-error">
                {error}
              </span>
            ) : null}
          </div>
        );
      })}
      <BrowserEnvironmentFields
        id={id}
        read={(path) => read(props.config, path)}
        set={set}
        errorOf={errorOf}
      />
    </details>
  );
}
