import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { adminApi } from '../../api/admin.ts';
import { Problems } from '../../components/admin/Field.tsx';
import { ResourceTable } from '../../components/admin/ResourceTable.tsx';
import { RoleNote } from '../../components/admin/RoleNote.tsx';
import { ErrorMessage } from '../../components/ErrorMessage.tsx';
import { Timestamp } from '../../components/Timestamp.tsx';
import { usePermissions } from '../../lib/permissions.ts';
import { useProjectScope } from '../../lib/scope.ts';
import { type WebhookFields, WebhookForm, webhookEvents } from './WebhookForm.tsx';
import './admin.css';

/** A secret shown once, right after it was made. */
function OnceSecret({ label, secret, onDone }: { label: string; secret: string; onDone: () => void }) {
  return (
    <div className="notice" role="status">
      <p>{label} Copy it now: it is never shown again.</p>
      <code data-testid="webhook-secret">{secret}</code>{' '}
      <button type="button" onClick={() => void navigator.clipboard?.writeText(secret)}>
        Copy secret
      </button>{' '}
      <button type="button" onClick={onDone}>
        Done
      </button>
    </div>
  );
}

/** One webhook's deliveries: status, attempts, response, error, the exact body sent; retry. */
function Deliveries({ webhookId }: { webhookId: string }) {
  const queryClient = useQueryClient();
  const scope = useProjectScope();
  const deliveries = useQuery({
    queryKey: ['deliveries', webhookId],
    queryFn: () => adminApi.deliveries(webhookId),
    refetchInterval: 3000,
  });
  const retry = useMutation({
    mutationFn: (deliveryId: string) => adminApi.retryDelivery(webhookId, deliveryId),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['deliveries', webhookId] }),
  });
  const list = deliveries.data?.data ?? [];
  const mayRetry = usePermissions().can('webhooks');
  return (
    <div>
      {retry.error && <ErrorMessage error={retry.error} title="Not retried" />}
      <ResourceTable
        caption="Deliveries, newest first"
        error={deliveries.error}
        rows={list}
        rowKey={(delivery) => delivery.id}
        empty="No deliveries yet."
        columns={[
          { header: 'Created', cell: (delivery) => <Timestamp iso={delivery.createdAt} /> },
          { header: 'Event', cell: (delivery) => delivery.event },
          {
            header: 'Run',
            cell: (delivery) => (
              <Link to={`/projects/${scope.projectId}/runs/${delivery.runId}${scope.branchQuery}`}>
                {delivery.runId.slice(0, 8)}
              </Link>
            ),
          },
          { header: 'Status', cell: (delivery) => delivery.status },
          { header: 'Attempts', cell: (delivery) => delivery.attempts },
          { header: 'Response', cell: (delivery) => delivery.lastResponseCode ?? '—' },
          { header: 'Error', cell: (delivery) => delivery.lastError ?? '' },
          {
            header: 'Body sent',
            cell: (delivery) => (
              <details>
                <summary>Body</summary>
                <pre className="wrapped">{delivery.body}</pre>
              </details>
            ),
          },
          ...(mayRetry
            ? [
                {
                  header: 'Actions',
                  cell: (delivery: (typeof list)[number]) => (
                    <button type="button" onClick={() => retry.mutate(delivery.id)}>
                      Retry
                    </button>
                  ),
                },
              ]
            : []),
        ]}
      />
    </div>
  );
}

/** The body each event sends, as the service builds it (an example run). */
function SamplePayloads() {
  return (
    <section aria-label="Sample payloads">
      <h2>Sample payloads</h2>
      <p className="muted">
        What a delivery&apos;s body looks like for each event (signed with X-Service-Signature, an HMAC-SHA256
        of the exact body).
      </p>
      {webhookEvents.map((event) => (
        <SamplePayload key={event} event={event} />
      ))}
    </section>
  );
}

function SamplePayload({ event }: { event: string }) {
  const [open, setOpen] = useState(false);
  const sample = useQuery({
    queryKey: ['webhook-sample', event],
    queryFn: () => adminApi.samplePayload(event),
    enabled: open,
    staleTime: Infinity,
  });
  return (
    <details onToggle={(toggle) => setOpen((toggle.target as HTMLDetailsElement).open)}>
      <summary>{event}</summary>
      {sample.error && <ErrorMessage error={sample.error} />}
      <pre className="wrapped" data-testid={`sample-${event}`}>
        {sample.data ? JSON.stringify(sample.data.data, null, 2) : '…'}
      </pre>
    </details>
  );
}

type Webhook = Awaited<ReturnType<typeof adminApi.webhooks>>['data'][number];

/** Outbound webhooks: create and edit, enable/disable, rotate (secret shown once), delete, deliveries, samples. */
export function WebhooksPage() {
  const queryClient = useQueryClient();
  const webhooks = useQuery({ queryKey: ['webhooks'], queryFn: adminApi.webhooks });
  const [secret, setSecret] = useState<{ label: string; secret: string } | undefined>();
  const [open, setOpen] = useState<string | undefined>();
  const [editing, setEditing] = useState<Webhook | undefined>();
  // Bumped on each webhook created: the create form remounts empty.
  const [created, setCreated] = useState(0);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['webhooks'] });
  const create = useMutation({
    mutationFn: adminApi.createWebhook,
    onSuccess: (answer) => {
      setSecret({ label: `Webhook created. Its signing secret:`, secret: answer.data.secret });
      setCreated((count) => count + 1);
      void refresh();
    },
  });
  const update = useMutation({
    mutationFn: ({ id, fields }: { id: string; fields: WebhookFields }) => adminApi.updateWebhook(id, fields),
    onSuccess: () => {
      setEditing(undefined);
      void refresh();
    },
  });
  const toggle = useMutation({
    mutationFn: ({ id, enabled }: { id: string; enabled: boolean }) =>
      adminApi.setWebhookEnabled(id, enabled),
    onSettled: refresh,
  });
  const rotate = useMutation({
    mutationFn: adminApi.rotateWebhookSecret,
    onSuccess: (answer) =>
      setSecret({ label: 'Secret rotated. The new signing secret:', secret: answer.data.secret }),
  });
  const remove = useMutation({ mutationFn: adminApi.deleteWebhook, onSettled: refresh });
  const mayChange = usePermissions().can('webhooks');
  return (
    <section>
      <h1>Webhooks</h1>
      <RoleNote permission="webhooks" what="manage webhooks" />
      {secret && <OnceSecret {...secret} onDone={() => setSecret(undefined)} />}
      {mayChange && (
        <WebhookForm
          key={created}
          label="Create a webhook"
          submitLabel="Create webhook"
          onSubmit={(fields) => create.mutate(fields)}
          onEdit={() => create.reset()}
        />
      )}
      {create.error && <ErrorMessage error={create.error} title="Not created" />}
      {editing && (
        <section aria-label="Edit the webhook">
          <h2>Edit {editing.url}</h2>
          <WebhookForm
            key={editing.id}
            label="Edit webhook"
            submitLabel="Save webhook"
            initial={editing}
            onSubmit={(fields) => update.mutate({ id: editing.id, fields })}
            onEdit={() => update.reset()}
            onCancel={() => setEditing(undefined)}
          />
          {update.error && <ErrorMessage error={update.error} title="Not saved" />}
        </section>
      )}
      <Problems errors={[toggle.error, rotate.error, remove.error]} />
      <ResourceTable
        caption="Webhooks of the organization"
        error={webhooks.error}
        rows={webhooks.data?.data ?? []}
        rowKey={(hook) => hook.id}
        empty={
          webhooks.data ? (
            <>
              <p>
                <strong>No webhooks yet.</strong> A webhook posts a signed JSON body to your URL when a run
                completes or fails (run.completed, run.failed), for a chat bridge, a dashboard or your own CI.
              </p>
              <p>
                {mayChange ? 'Create one with the form above;' : 'An owner or admin creates them;'} the sample
                payloads below show each event&apos;s body.
              </p>
            </>
          ) : undefined
        }
        columns={[
          { header: 'URL', cell: (hook) => <code>{hook.url}</code> },
          { header: 'Events', cell: (hook) => hook.events.join(', ') },
          { header: 'State', cell: (hook) => (hook.enabled ? 'Enabled' : 'Disabled') },
          {
            header: 'Actions',
            cell: (hook) => (
              <>
                {mayChange && (
                  <>
                    <button
                      type="button"
                      onClick={() => {
                        update.reset();
                        setEditing(hook);
                      }}
                    >
                      Edit
                    </button>{' '}
                    <button
                      type="button"
                      onClick={() => toggle.mutate({ id: hook.id, enabled: !hook.enabled })}
                    >
                      {hook.enabled ? 'Disable' : 'Enable'}
                    </button>{' '}
                    <button type="button" onClick={() => rotate.mutate(hook.id)}>
                      Rotate secret
                    </button>{' '}
                  </>
                )}
                <button type="button" onClick={() => setOpen(open === hook.id ? undefined : hook.id)}>
                  {open === hook.id ? 'Hide deliveries' : 'Deliveries'}
                </button>
                {mayChange && (
                  <>
                    {' '}
                    <button type="button" onClick={() => remove.mutate(hook.id)}>
                      Delete
                    </button>
                  </>
                )}
              </>
            ),
          },
        ]}
      />
      {open && (
        <section aria-label="Deliveries of the webhook">
          <h2>Deliveries</h2>
          <Deliveries webhookId={open} />
        </section>
      )}
      <SamplePayloads />
    </section>
  );
}
