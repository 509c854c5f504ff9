import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { installApi } from '../../api/install.ts';
import { Field } from '../../components/admin/Field.tsx';
import { ResourceTable } from '../../components/admin/ResourceTable.tsx';
import { ErrorMessage } from '../../components/ErrorMessage.tsx';
import { Timestamp } from '../../components/Timestamp.tsx';

// Every change is also a new line of the install's audit log: the whole area refreshes.
const installKey = ['install'];
const adminsKey = ['install', 'admins'];

/** The install admins: grant the role to an existing user by email, revoke it (never the last). */
export function InstallAdmins(props: { enabled: boolean }) {
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const admins = useQuery({ queryKey: adminsKey, queryFn: installApi.admins, enabled: props.enabled });
  const refresh = () => queryClient.invalidateQueries({ queryKey: installKey });
  const grant = useMutation({
    mutationFn: () => installApi.grantAdmin(email.trim()),
    onSuccess: async () => {
      setEmail('');
      await refresh();
    },
  });
  const revoke = useMutation({ mutationFn: installApi.revokeAdmin, onSuccess: refresh });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    grant.mutate();
  };
  return (
    <section aria-labelledby="install-admins">
      <h2 id="install-admins">Install admins</h2>
      <form className="filters" onSubmit={submit} aria-label="Grant the install-admin role">
        <Field label="User's email" hint="The user must already exist in some organization.">
          <input type="email" required value={email} onChange={(event) => setEmail(event.target.value)} />
        </Field>
        <button type="submit" disabled={grant.isPending}>
          Grant
        </button>
      </form>
      {grant.error ? <ErrorMessage error={grant.error} title="Could not grant the role" /> : null}
      {revoke.error ? <ErrorMessage error={revoke.error} title="Could not revoke the role" /> : null}
      <ResourceTable
        caption={
          admins.data
            ? admins.data.data.length === 1
              ? '1 install admin'
              : `${admins.data.data.length} install admins`
            : 'Loading…'
        }
        error={admins.error}
        rows={admins.data?.data ?? []}
        rowKey={(admin) => admin.userId}
        empty={<p>No install admins.</p>}
        columns={[
          { header: 'Email', cell: (admin) => admin.email },
          { header: 'Organization', cell: (admin) => admin.organizationName },
          { header: 'Granted by', cell: (admin) => admin.grantedBy ?? 'Bootstrap' },
          { header: 'Since', cell: (admin) => <Timestamp iso={admin.createdAt} /> },
          {
            header: 'Actions',
            cell: (admin) => (
              <button
                type="button"
                // The service never takes the role from the last install admin.
                disabled={revoke.isPending || admins.data?.data.length === 1}
                onClick={() => revoke.mutate(admin.userId)}
                aria-label={`Revoke install admin from ${admin.email}`}
              >
                Revoke
              </button>
            ),
          },
        ]}
      />
    </section>
  );
}
