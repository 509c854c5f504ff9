import type {
  AlertChannel,
  AlertChannelCreate,
  AlertChannelKind,
  AlertChannelUpdate,
} from '@stepdeck/contract';
import { type FormEvent, useState } from 'react';
import { ApiError } from '../../api/client.ts';
import { Field } from '../../components/admin/Field.tsx';
import { ErrorMessage } from '../../components/ErrorMessage.tsx';
import { maxResourceNameLength } from '../../lib/limits.ts';

export const kindLabels: Record<AlertChannelKind, string> = {
  slack: 'Slack',
  teams: 'Microsoft Teams',
  email: 'Email',
};

type FieldName = 'name' | 'url' | 'recipients' | 'scheduleId';
const fieldNames: readonly FieldName[] = ['name', 'url', 'recipients', 'scheduleId'];

/**
 * The service's 400 names the field at fault at the start of each problem (`url must use
 * https://`, `recipients: an email channel needs…`, `recipients.0: …`): each goes under its
 * field; whatever names none (the SMTP relay not set) stays above the form's button.
 */
export function problemsByField(error: unknown): {
  fields: Partial<Record<FieldName, string>>;
  rest: unknown;
} {
  if (!(error instanceof ApiError) || error.status !== 400) return { fields: {}, rest: error };
  const fields: Partial<Record<FieldName, string>> = {};
  const rest: string[] = [];
  for (const problem of error.message.split('; ')) {
    const named = fieldNames.find((field) =>
      new RegExp(`^(?:body\\.)?${field}(?:\\.\\d+)?\\b`).test(problem),
    );
    if (named) fields[named] = fields[named] ? `${fields[named]}; ${problem}` : problem;
    else rest.push(problem);
  }
  return { fields, rest: rest.length > 0 ? new ApiError(error.status, rest.join('; ')) : null };
}

function FieldProblem({ id, problem }: { id: string; problem: string | undefined }) {
  return problem ? (
    <small id={id} className="field-error" role="alert">
      {problem}
    </small>
  ) : null;
}

/**
 * An alert channel's form: empty to create one, or filled from a channel to edit it. The kind
 * decides whether a URL or recipients are asked for (and is fixed once created); the URL shows
 * as the service returned it, and sent back unchanged it is left out, so the stored one stays.
 */
export function AlertChannelForm(props: {
  schedules: ReadonlyArray<{ id: string; name: string }>;
  channel?: AlertChannel;
  error?: unknown;
  pending?: boolean;
  onCreate?(fields: AlertChannelCreate): void;
  onUpdate?(fields: AlertChannelUpdate): void;
  onCancel?(): void;
}) {
  const initial = props.channel;
  const [kind, setKind] = useState<AlertChannelKind>(initial?.kind ?? 'slack');
  const [name, setName] = useState(initial?.name ?? '');
  const [url, setUrl] = useState(initial?.url ?? '');
  const [recipients, setRecipients] = useState(initial?.recipients.join(', ') ?? '');
  const [scheduleId, setScheduleId] = useState(initial?.scheduleId ?? '');
  const [onFailed, setOnFailed] = useState(initial?.onFailed ?? true);
  const [onRecovered, setOnRecovered] = useState(initial?.onRecovered ?? true);
  const [everyFailure, setEveryFailure] = useState(initial?.everyFailure ?? false);
  const { fields: problems, rest } = problemsByField(props.error);
  const idPrefix = initial ? `alert-edit-${initial.id}` : 'alert-create';
  const invalid = (field: FieldName) =>
    problems[field]
      ? { 'aria-invalid': true as const, 'aria-describedby': `${idPrefix}-${field}-problem` }
      : {};
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const common = { name, scheduleId: scheduleId || null, onFailed, onRecovered, everyFailure };
    const destination =
      kind === 'email'
        ? {
            recipients: recipients
              .split(/[\s,;]+/)
              .map((address) => address.trim())
              .filter(Boolean),
          }
        : initial && url === initial.url
          ? {}
          : { url };
    if (initial) props.onUpdate?.({ ...common, ...destination });
    else props.onCreate?.({ kind, ...common, ...destination });
  };
  const title = initial ? `Edit alert channel ${initial.name}` : 'Create an alert channel';
  return (
    <form className="admin-form" aria-label={title} onSubmit={submit} noValidate={!!initial}>
      <h2>{title}</h2>
      {initial ? (
        <p className="muted">Kind: {kindLabels[kind]} (fixed once created)</p>
      ) : (
        <Field label="Kind">
          <select value={kind} onChange={(event) => setKind(event.target.value as AlertChannelKind)}>
            {(Object.keys(kindLabels) as AlertChannelKind[]).map((value) => (
              <option key={value} value={value}>
                {kindLabels[value]}
              </option>
            ))}
          </select>
        </Field>
      )}
      <Field label="Name">
        <input
          value={name}
          onChange={(event) => setName(event.target.value)}
          required
          maxLength={maxResourceNameLength}
          {...invalid('name')}
        />
        <FieldProblem id={`${idPrefix}-name-problem`} problem={problems.name} />
      </Field>
      {kind === 'email' ? (
        <Field
          label="Recipients"
          hint="Email addresses, separated by commas; sent through the install's SMTP relay."
        >
          <input
            value={recipients}
            onChange={(event) => setRecipients(event.target.value)}
            required
            {...invalid('recipients')}
          />
          <FieldProblem id={`${idPrefix}-recipients-problem`} problem={problems.recipients} />
        </Field>
      ) : (
        <Field
          label="Incoming-webhook URL"
          hint={
            initial
              ? 'Leave it as shown to keep the stored URL.'
              : kind === 'slack'
                ? 'From Slack: an app with Incoming Webhooks (https://hooks.slack.com/services/…).'
                : 'From Teams: a channel workflow or connector that accepts an Adaptive Card.'
          }
        >
          <input
            type="url"
            value={url}
            onChange={(event) => setUrl(event.target.value)}
            required
            {...invalid('url')}
          />
          <FieldProblem id={`${idPrefix}-url-problem`} problem={problems.url} />
        </Field>
      )}
      <Field label="Runs">
        <select
          value={scheduleId}
          onChange={(event) => setScheduleId(event.target.value)}
          {...invalid('scheduleId')}
        >
          <option value="">Every run of the project</option>
          {props.schedules.map((schedule) => (
            <option key={schedule.id} value={schedule.id}>
              Schedule: {schedule.name}
            </option>
          ))}
        </select>
        <FieldProblem id={`${idPrefix}-scheduleId-problem`} problem={problems.scheduleId} />
      </Field>
      <fieldset>
        <legend>Alert on</legend>
        <label>
          <input type="checkbox" checked={onFailed} onChange={(event) => setOnFailed(event.target.checked)} />{' '}
          A run failed
        </label>
        <label>
          <input
            type="checkbox"
            checked={everyFailure}
            disabled={!onFailed}
            onChange={(event) => setEveryFailure(event.target.checked)}
          />{' '}
          Every failure, not only the first after a pass
        </label>
        <label>
          <input
            type="checkbox"
            checked={onRecovered}
            onChange={(event) => setOnRecovered(event.target.checked)}
          />{' '}
          A run recovered (the first pass after a failure)
        </label>
      </fieldset>
      {rest ? <ErrorMessage error={rest} title={initial ? 'Not saved' : 'Not created'} /> : null}
      <button type="submit" disabled={props.pending}>
        {initial ? 'Save channel' : 'Create channel'}
      </button>
      {initial ? (
        <>
          {' '}
          <button type="button" onClick={props.onCancel}>
            Cancel
          </button>
        </>
      ) : null}
    </form>
  );
}
