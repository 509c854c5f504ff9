import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { adminApi } from '../../api/admin.ts';
import { ErrorMessage } from '../../components/ErrorMessage.tsx';

const events = ['run.completed', 'run.failed'] as const;
const maxCustomDataBytes = 4 * 1024;

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
  return (
    <div>
      {retry.error && <ErrorMessage error={retry.error} title="Not retried" />}
      {list.length === 0 ? (
        <p className="muted">No deliveries yet.</p>
      ) : (
        <table>
          <caption>Deliveries, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Status</th>
              <th scope="col">Attempts</th>
              <th scope="col">Response</th>
              <th scope="col">Error</th>
              <th scope="col">Body sent</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {list.map((delivery) => (
              <tr key={delivery.id}>
                <td>{delivery.event}</td>
                <td>{delivery.status}</td>
                <td>{delivery.attempts}</td>
                <td>{delivery.lastResponseCode ?? '—'}</td>
                <td>{delivery.lastError ?? ''}</td>
                <td>
                  <details>
                    <summary>Body</summary>
                    <pre>{delivery.body}</pre>
                  </details>
                </td>
                <td>
                  <button type="button" onClick={() => retry.mutate(delivery.id)}>
                    Retry
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

/** Outbound webhooks: create (secret shown once), enable/disable, rotate, delete, deliveries. */
export function WebhooksPage() {
  const queryClient = useQueryClient();
  const webhooks = useQuery({ queryKey: ['webhooks'], queryFn: adminApi.webhooks });
  const [url, setUrl] = useState('');
  const [chosen, setChosen] = useState<string[]>(['run.completed', 'run.failed']);
  const [customData, setCustomData] = useState('');
  const [problem, setProblem] = useState<string | undefined>();
  const [secret, setSecret] = useState<{ label: string; secret: string } | undefined>();
  const [open, setOpen] = useState<string | undefined>();
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['webhooks'] });
  const create = useMutation({
    mutationFn: adminApi.createWebhook,
    onSuccess: (answer) => {
      setSecret({ label: `Webhook created. Its signing secret:`, secret: answer.data.secret });
      setUrl('');
      setCustomData('');
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
  const submit = (event: FormEvent) => {
    event.preventDefault();
    let data: Record<string, unknown> | null = null;
    if (customData.trim()) {
      if (new TextEncoder().encode(customData).length > maxCustomDataBytes) {
        setProblem('Custom data must be at most 4 KB of JSON');
        return;
      }
      try {
        data = JSON.parse(customData) as Record<string, unknown>;
      } catch (error) {
        setProblem(`Custom data is not valid JSON: ${(error as Error).message}`);
        return;
      }
    }
    setProblem(undefined);
    create.mutate({ url, events: chosen, customData: data });
  };
  return (
    <section>
      <h1>Webhooks</h1>
      {secret && <OnceSecret {...secret} onDone={() => setSecret(undefined)} />}
      <form className="admin-form" onSubmit={submit} aria-label="Create a webhook">
        <label>
          Endpoint URL (https){' '}
          <input type="url" value={url} onChange={(event) => setUrl(event.target.value)} required />
        </label>
        <fieldset>
          <legend>Events</legend>
          {events.map((name) => (
            <label key={name}>
              <input
                type="checkbox"
                checked={chosen.includes(name)}
                onChange={(event) =>
                  setChosen(event.target.checked ? [...chosen, name] : chosen.filter((item) => item !== name))
                }
              />{' '}
              {name}
            </label>
          ))}
        </fieldset>
        <label>
          Custom data (JSON, up to 4 KB)
          <textarea rows={3} value={customData} onChange={(event) => setCustomData(event.target.value)} />
        </label>
        <button type="submit" disabled={chosen.length === 0}>
          Create webhook
        </button>
      </form>
      {problem && (
        <div role="alert" className="error-box">
          {problem}
        </div>
      )}
      {create.error && <ErrorMessage error={create.error} title="Not created" />}
      {toggle.error && <ErrorMessage error={toggle.error} />}
      {rotate.error && <ErrorMessage error={rotate.error} />}
      {remove.error && <ErrorMessage error={remove.error} />}
      {webhooks.error && <ErrorMessage error={webhooks.error} />}
      <table>
        <caption>Webhooks of the organization</caption>
        <thead>
          <tr>
            <th scope="col">URL</th>
            <th scope="col">Events</th>
            <th scope="col">State</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {(webhooks.data?.data ?? []).map((hook) => (
            <tr key={hook.id}>
              <td>
                <code>{hook.url}</code>
              </td>
              <td>{hook.events.join(', ')}</td>
              <td>{hook.enabled ? 'Enabled' : 'Disabled'}</td>
              <td>
                <button type="button" onClick={() => toggle.mutate({ id: hook.id, enabled: !hook.enabled })}>
                  {hook.enabled ? 'Disable' : 'Enable'}
                </button>{' '}
                <button type="button" onClick={() => rotate.mutate(hook.id)}>
                  Rotate secret
                </button>{' '}
                <button type="button" onClick={() => setOpen(open === hook.id ? undefined : hook.id)}>
                  {open === hook.id ? 'Hide deliveries' : 'Deliveries'}
                </button>{' '}
                <button type="button" onClick={() => remove.mutate(hook.id)}>
                  Delete
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {open && (
        <section aria-label="Deliveries of the webhook">
          <h2>Deliveries</h2>
          <Deliveries webhookId={open} />
        </section>
      )}
    </section>
  );
}
