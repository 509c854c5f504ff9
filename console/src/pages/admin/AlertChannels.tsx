import type { AlertChannel, AlertChannelKind } from '@stepdeck/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { alertsApi, alertsKey } from '../../api/alerts.ts';
import { api } from '../../api/endpoints.ts';
import { Field, NameField, Problems } from '../../components/admin/Field.tsx';
import { ResourceTable } from '../../components/admin/ResourceTable.tsx';
import { RoleNote } from '../../components/admin/RoleNote.tsx';
import { ErrorMessage } from '../../components/ErrorMessage.tsx';
import { Timestamp } from '../../components/Timestamp.tsx';
import { usePermissions } from '../../lib/permissions.ts';
import { useProjectScope } from '../../lib/scope.ts';
import './admin.css';

const kindLabels: Record<AlertChannelKind, string> = {
  slack: 'Slack',
  teams: 'Microsoft Teams',
  email: 'Email',
};

/** Which runs a channel hears, and when it speaks, in words. */
function describeEvents(channel: AlertChannel): string {
  const events = [
    channel.onFailed ? (channel.everyFailure ? 'every failure' : 'first failure') : null,
    channel.onRecovered ? 'recovery' : null,
  ].filter(Boolean);
  return events.length > 0 ? events.join(', ') : 'nothing';
}

/** The create form: the kind decides whether a URL or recipients are asked for. */
function AlertChannelForm(props: {
  schedules: ReadonlyArray<{ id: string; name: string }>;
  onSubmit(fields: Parameters<typeof alertsApi.create>[1]): void;
}) {
  const [kind, setKind] = useState<AlertChannelKind>('slack');
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [recipients, setRecipients] = useState('');
  const [scheduleId, setScheduleId] = useState('');
  const [onFailed, setOnFailed] = useState(true);
  const [onRecovered, setOnRecovered] = useState(true);
  const [everyFailure, setEveryFailure] = useState(false);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    props.onSubmit({
      kind,
      name,
      scheduleId: scheduleId || null,
      onFailed,
      onRecovered,
      everyFailure,
      ...(kind === 'email'
        ? {
            recipients: recipients
              .split(/[\s,;]+/)
              .map((address) => address.trim())
              .filter(Boolean),
          }
        : { url }),
    });
  };
  return (
    <form className="admin-form" aria-label="Create an alert channel" onSubmit={submit}>
      <h2>Create an alert channel</h2>
      <Field label="Kind">
        <select value={kind} onChange={(event) => setKind(event.target.value as AlertChannelKind)}>
          {(Object.keys(kindLabels) as AlertChannelKind[]).map((value) => (
            <option key={value} value={value}>
              {kindLabels[value]}
            </option>
          ))}
        </select>
      </Field>
      <NameField label="Name" value={name} onChange={setName} />
      {kind === 'email' ? (
        <Field
          label="Recipients"
          hint="Email addresses, separated by commas; sent through the install's SMTP relay."
        >
          <input value={recipients} onChange={(event) => setRecipients(event.target.value)} required />
        </Field>
      ) : (
        <Field
          label="Incoming-webhook URL"
          hint={
            kind === 'slack'
              ? 'From Slack: an app with Incoming Webhooks (https://hooks.slack.com/services/…).'
              : 'From Teams: a channel workflow or connector that accepts an Adaptive Card.'
          }
        >
          <input type="url" value={url} onChange={(event) => setUrl(event.target.value)} required />
        </Field>
      )}
      <Field label="Runs">
        <select value={scheduleId} onChange={(event) => setScheduleId(event.target.value)}>
          <option value="">Every run of the project</option>
          {props.schedules.map((schedule) => (
            <option key={schedule.id} value={schedule.id}>
              Schedule: {schedule.name}
            </option>
          ))}
        </select>
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
      <button type="submit">Create channel</button>
    </form>
  );
}

/** A project's alert channels: Slack, Microsoft Teams and email, on failed and recovered runs. */
export function AlertChannelsPage() {
  const { projectId } = useProjectScope();
  const queryClient = useQueryClient();
  const channels = useQuery({ queryKey: alertsKey(projectId), queryFn: () => alertsApi.list(projectId) });
  const schedules = useQuery({ queryKey: ['schedules', projectId], queryFn: () => api.schedules(projectId) });
  const [created, setCreated] = useState(0);
  const [tested, setTested] = useState<{ name: string; error: string | null } | undefined>();
  const refresh = () => queryClient.invalidateQueries({ queryKey: alertsKey(projectId) });
  const create = useMutation({
    mutationFn: (body: Parameters<typeof alertsApi.create>[1]) => alertsApi.create(projectId, body),
    onSuccess: () => {
      setCreated((count) => count + 1);
      void refresh();
    },
  });
  const toggle = useMutation({
    mutationFn: (channel: AlertChannel) =>
      alertsApi.update(projectId, channel.id, { enabled: !channel.enabled }),
    onSettled: refresh,
  });
  const remove = useMutation({
    mutationFn: (id: string) => alertsApi.remove(projectId, id),
    onSettled: refresh,
  });
  const sendTest = useMutation({
    mutationFn: (channel: AlertChannel) => alertsApi.sendTest(projectId, channel.id),
    onSuccess: (answer, channel) => setTested({ name: channel.name, error: answer.data.error }),
    onSettled: refresh,
  });
  const mayChange = usePermissions().can('alerts');
  const scheduleList = schedules.data?.data ?? [];
  const scheduleName = (id: string | null) =>
    id === null ? 'Every run' : `Schedule ${scheduleList.find((schedule) => schedule.id === id)?.name ?? id}`;
  return (
    <section>
      <h1>Alerts</h1>
      <p className="muted">
        Where a failed run, and the first pass after it, is announced: a Slack or Microsoft Teams channel, or
        email. Each message links the run and names the failing tests with their triage (new, known, flaky,
        quarantined).
      </p>
      <RoleNote permission="alerts" what="manage alert channels" />
      {tested && (
        <p className={tested.error ? 'notice' : 'muted'} role="status">
          {tested.error
            ? `The test message to ${tested.name} was not delivered: ${tested.error}`
            : `A test message was sent to ${tested.name}.`}
        </p>
      )}
      {mayChange && (
        <AlertChannelForm key={created} schedules={scheduleList} onSubmit={(body) => create.mutate(body)} />
      )}
      {create.error && <ErrorMessage error={create.error} title="Not created" />}
      <Problems errors={[toggle.error, remove.error, sendTest.error]} />
      <ResourceTable
        caption="Alert channels of the project"
        error={channels.error}
        rows={channels.data?.data ?? []}
        rowKey={(channel) => channel.id}
        empty={
          channels.data ? (
            <p>
              <strong>No alert channels yet.</strong>{' '}
              {mayChange
                ? 'Create one with the form above: a Slack or Teams incoming-webhook URL, or email recipients.'
                : 'An owner or admin creates them.'}
            </p>
          ) : undefined
        }
        columns={[
          { header: 'Name', cell: (channel) => channel.name },
          { header: 'Kind', cell: (channel) => kindLabels[channel.kind] },
          {
            header: 'Destination',
            cell: (channel) =>
              channel.kind === 'email' ? channel.recipients.join(', ') : <code>{channel.url}</code>,
          },
          { header: 'Runs', cell: (channel) => scheduleName(channel.scheduleId) },
          { header: 'Alerts on', cell: (channel) => describeEvents(channel) },
          { header: 'State', cell: (channel) => (channel.enabled ? 'Enabled' : 'Disabled') },
          {
            header: 'Last sent',
            cell: (channel) => (channel.lastSentAt ? <Timestamp iso={channel.lastSentAt} /> : 'Never'),
          },
          { header: 'Last error', cell: (channel) => channel.lastError ?? '' },
          ...(mayChange
            ? [
                {
                  header: 'Actions',
                  cell: (channel: AlertChannel) => (
                    <>
                      <button
                        type="button"
                        aria-label={`Send test message to ${channel.name}`}
                        onClick={() => sendTest.mutate(channel)}
                      >
                        Send test message
                      </button>{' '}
                      <button
                        type="button"
                        aria-label={`${channel.enabled ? 'Disable' : 'Enable'} ${channel.name}`}
                        onClick={() => toggle.mutate(channel)}
                      >
                        {channel.enabled ? 'Disable' : 'Enable'}
                      </button>{' '}
                      <button
                        type="button"
                        aria-label={`Delete ${channel.name}`}
                        onClick={() => remove.mutate(channel.id)}
                      >
                        Delete
                      </button>
                    </>
                  ),
                },
              ]
            : []),
        ]}
      />
    </section>
  );
}
