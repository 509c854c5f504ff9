import type { AlertChannel, AlertChannelUpdate } from '@stepdeck/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { alertsApi, alertsKey } from '../../api/alerts.ts';
import { api } from '../../api/endpoints.ts';
import { Problems } from '../../components/admin/Field.tsx';
import { ResourceTable } from '../../components/admin/ResourceTable.tsx';
import { RoleNote } from '../../components/admin/RoleNote.tsx';
import { Timestamp } from '../../components/Timestamp.tsx';
import { usePermissions } from '../../lib/permissions.ts';
import { useProjectScope } from '../../lib/scope.ts';
import { AlertChannelDeliveries } from './AlertChannelDeliveries.tsx';
import { AlertChannelForm, kindLabels } from './AlertChannelForm.tsx';
import './admin.css';

/** Which runs a channel hears, and when it speaks, in words. */
function describeEvents(channel: AlertChannel): string {
  const events = [
    channel.onFailed ? (channel.everyFailure ? 'every failure' : 'first failure') : null,
    channel.onRecovered ? 'recovery' : null,
  ].filter(Boolean);
  return events.length > 0 ? events.join(', ') : 'nothing';
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
  const [editing, setEditing] = useState<AlertChannel | undefined>();
  const update = useMutation({
    mutationFn: (body: AlertChannelUpdate) => alertsApi.update(projectId, editing?.id ?? '', body),
    onSuccess: () => {
      setEditing(undefined);
      void refresh();
    },
  });
  const startEditing = (channel: AlertChannel) => {
    update.reset();
    setEditing(channel);
  };
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
      {mayChange && editing ? (
        <AlertChannelForm
          key={`edit-${editing.id}`}
          channel={editing}
          schedules={scheduleList}
          error={update.error}
          pending={update.isPending}
          onUpdate={(body) => update.mutate(body)}
          onCancel={() => setEditing(undefined)}
        />
      ) : mayChange ? (
        <AlertChannelForm
          key={created}
          schedules={scheduleList}
          error={create.error}
          pending={create.isPending}
          onCreate={(body) => create.mutate(body)}
        />
      ) : null}
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
                        aria-label={`Edit ${channel.name}`}
                        onClick={() => startEditing(channel)}
                      >
                        Edit
                      </button>{' '}
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
      {(channels.data?.data.length ?? 0) > 0 ? (
        <>
          <h2>Latest alerts</h2>
          <p className="muted">
            Each alert is kept until it is delivered: an attempt that fails is retried (up to five attempts
            over about half an hour), also after the service restarts.
          </p>
          {channels.data?.data.map((channel) => (
            <AlertChannelDeliveries key={channel.id} projectId={projectId} channel={channel} />
          ))}
        </>
      ) : null}
    </section>
  );
}
