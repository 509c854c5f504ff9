import type { InstallOrganization } from '@stepdeck/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { installApi } from '../../api/install.ts';
import { ResourceTable } from '../../components/admin/ResourceTable.tsx';
import { Dialog } from '../../components/Dialog.tsx';
import { ErrorMessage } from '../../components/ErrorMessage.tsx';
import { Timestamp } from '../../components/Timestamp.tsx';
import { QuotaForm } from './QuotaForm.tsx';

// Every change is also a new line of the install's audit log: the whole area refreshes.
const installKey = ['install'];
const organizationsKey = ['install', 'organizations'];

function stateOf(organization: InstallOrganization) {
  if (organization.deleteAfter)
    return (
      <>
        Deleted, purged <Timestamp iso={organization.deleteAfter} />
      </>
    );
  if (organization.suspendedAt)
    return (
      <>
        Suspended <Timestamp iso={organization.suspendedAt} />
      </>
    );
  return 'Active';
}

/** The concurrency cap of one organization, edited in place. */
function CapForm(props: { organization: InstallOrganization; runnerSlots: number | undefined }) {
  const queryClient = useQueryClient();
  const [value, setValue] = useState(String(props.organization.concurrencyCap));
  const save = useMutation({
    mutationFn: () => installApi.setConcurrencyCap(props.organization.id, Number(value)),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: installKey }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <form
      className="install-cap"
      onSubmit={submit}
      aria-label={`Concurrency cap of ${props.organization.name}`}
    >
      <input
        type="number"
        min={1}
        max={props.runnerSlots ?? 64}
        required
        value={value}
        onChange={(event) => setValue(event.target.value)}
        aria-label={`Concurrency cap of ${props.organization.name}`}
      />
      <button type="submit" disabled={save.isPending || value === String(props.organization.concurrencyCap)}>
        Save
      </button>
      {save.error ? <ErrorMessage error={save.error} /> : null}
    </form>
  );
}

type Confirm = { kind: 'suspend' | 'delete'; organization: InstallOrganization };

/** Every organization of the install: subscription, cap, quotas, suspension and deletion. */
export function InstallOrganizations(props: { enabled: boolean; runnerSlots: number | undefined }) {
  const queryClient = useQueryClient();
  const [confirm, setConfirm] = useState<Confirm | undefined>();
  const organizations = useQuery({
    queryKey: organizationsKey,
    queryFn: installApi.organizations,
    enabled: props.enabled,
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: installKey });
  const subscription = useMutation({
    mutationFn: (input: { id: string; active: boolean }) =>
      installApi.setSubscription(input.id, input.active),
    onSuccess: refresh,
  });
  const suspension = useMutation({
    mutationFn: (input: { id: string; suspended: boolean }) =>
      installApi.setSuspended(input.id, input.suspended),
    onSuccess: async () => {
      setConfirm(undefined);
      await refresh();
    },
  });
  const removal = useMutation({
    mutationFn: (id: string) => installApi.deleteOrganization(id),
    onSuccess: async () => {
      setConfirm(undefined);
      await refresh();
    },
  });
  const confirmError = confirm?.kind === 'delete' ? removal.error : suspension.error;
  return (
    <section aria-labelledby="install-organizations">
      <h2 id="install-organizations">Organizations</h2>
      {subscription.error ? (
        <ErrorMessage error={subscription.error} title="Could not change the subscription" />
      ) : null}
      {suspension.error && !confirm ? (
        <ErrorMessage error={suspension.error} title="Could not restore" />
      ) : null}
      <ResourceTable
        caption={
          organizations.data
            ? organizations.data.data.length === 1
              ? '1 organization'
              : `${organizations.data.data.length} organizations`
            : 'Loading…'
        }
        error={organizations.error}
        rows={organizations.data?.data ?? []}
        rowKey={(organization) => organization.id}
        empty={<p>No organizations yet.</p>}
        columns={[
          {
            header: 'Organization',
            cell: (organization) => (
              <>
                {organization.name}
                {organization.isInstallOrganization ? <span className="muted"> (this install's)</span> : null}
              </>
            ),
          },
          { header: 'Users', cell: (organization) => organization.userCount },
          { header: 'State', cell: stateOf },
          {
            header: 'Subscription',
            cell: (organization) => (
              <label>
                <input
                  type="checkbox"
                  checked={organization.subscriptionActive}
                  disabled={subscription.isPending}
                  onChange={(event) =>
                    subscription.mutate({ id: organization.id, active: event.target.checked })
                  }
                  aria-label={`Subscription of ${organization.name} active`}
                />{' '}
                {organization.subscriptionActive ? 'Active' : 'Inactive'}
              </label>
            ),
          },
          {
            header: 'Concurrency cap',
            cell: (organization) => (
              <CapForm
                key={organization.concurrencyCap}
                organization={organization}
                runnerSlots={props.runnerSlots}
              />
            ),
          },
          {
            header: 'Artifact quota',
            cell: (organization) => (
              <QuotaForm
                key={String(organization.artifactQuotaBytes)}
                organization={organization}
                field="artifactQuotaBytes"
              />
            ),
          },
          {
            header: 'Inbox limit',
            cell: (organization) => (
              <QuotaForm
                key={String(organization.inboxLimit)}
                organization={organization}
                field="inboxLimit"
              />
            ),
          },
          { header: 'Created', cell: (organization) => <Timestamp iso={organization.createdAt} /> },
          {
            header: 'Actions',
            cell: (organization) =>
              organization.isInstallOrganization ? (
                <span className="muted">Cannot be suspended</span>
              ) : (
                <div className="row-actions">
                  {organization.suspendedAt ? (
                    <button
                      type="button"
                      disabled={suspension.isPending}
                      onClick={() => suspension.mutate({ id: organization.id, suspended: false })}
                      aria-label={`Restore ${organization.name}`}
                    >
                      Restore
                    </button>
                  ) : (
                    <button
                      type="button"
                      onClick={() => setConfirm({ kind: 'suspend', organization })}
                      aria-label={`Suspend ${organization.name}`}
                    >
                      Suspend
                    </button>
                  )}
                  {organization.deleteAfter ? null : (
                    <button
                      type="button"
                      onClick={() => setConfirm({ kind: 'delete', organization })}
                      aria-label={`Delete ${organization.name}`}
                    >
                      Delete
                    </button>
                  )}
                </div>
              ),
          },
        ]}
      />
      {confirm ? (
        <Dialog
          title={`${confirm.kind === 'delete' ? 'Delete' : 'Suspend'} ${confirm.organization.name}?`}
          onClose={() => setConfirm(undefined)}
        >
          <p>
            {confirm.kind === 'delete'
              ? 'The organization is suspended now and purged after the grace period, unless restored before.'
              : "The organization's API keys and sessions are refused and its schedules stop firing until it is restored."}
          </p>
          {confirmError ? <ErrorMessage error={confirmError} /> : null}
          <div className="dialog-buttons">
            <button
              type="button"
              disabled={suspension.isPending || removal.isPending}
              onClick={() =>
                confirm.kind === 'delete'
                  ? removal.mutate(confirm.organization.id)
                  : suspension.mutate({ id: confirm.organization.id, suspended: true })
              }
            >
              {confirm.kind === 'delete' ? 'Delete organization' : 'Suspend organization'}
            </button>
            <button type="button" onClick={() => setConfirm(undefined)}>
              Cancel
            </button>
          </div>
        </Dialog>
      ) : null}
    </section>
  );
}
