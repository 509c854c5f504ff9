import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { adminApi } from '../../api/admin.ts';
import { ResourceTable } from '../../components/admin/ResourceTable.tsx';
import { RoleNote } from '../../components/admin/RoleNote.tsx';
import { ErrorMessage } from '../../components/ErrorMessage.tsx';
import { assignableRoles, mayManageUser, usePermissions } from '../../lib/permissions.ts';

const roles = ['owner', 'admin', 'member'] as const;
type Member = Awaited<ReturnType<typeof adminApi.users>>['data'][number];

/** A password to hand to the new user once (they sign in with it). */
function oneTimePassword() {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** Users and roles: add a user with a one-time password, change roles (owners), remove. */
export function UsersPage() {
  const queryClient = useQueryClient();
  const users = useQuery({ queryKey: ['users'], queryFn: adminApi.users });
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<string>('member');
  const [added, setAdded] = useState<{ email: string; password: string } | undefined>();
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['users'] });
  const create = useMutation({
    mutationFn: async () => {
      const password = oneTimePassword();
      await adminApi.createUser({ email, password, role });
      return { email, password };
    },
    onSuccess: (user) => {
      setAdded(user);
      setEmail('');
      void refresh();
    },
  });
  const change = useMutation({
    mutationFn: ({ id, role: next }: { id: string; role: string }) => adminApi.changeRole(id, next),
    onSettled: refresh,
  });
  const remove = useMutation({ mutationFn: adminApi.removeUser, onSettled: refresh });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  const { role: myRole, can } = usePermissions();
  const mayManage = (target: Member) => myRole !== undefined && mayManageUser(myRole, target.role);
  return (
    <section>
      <h1>Users and roles</h1>
      <RoleNote permission="users" what="add or remove users" />
      {can('users') && <RoleNote permission="roles" what="change roles" />}
      {added && (
        <div className="notice" role="status">
          <p>
            {added.email} can sign in with this one-time password (shown once): <code>{added.password}</code>
          </p>
        </div>
      )}
      {can('users') && (
        <form className="filters" onSubmit={submit} onChange={() => create.reset()} aria-label="Add a user">
          <label>
            Email{' '}
            <input type="email" value={email} onChange={(event) => setEmail(event.target.value)} required />
          </label>
          <label>
            Role{' '}
            <select value={role} onChange={(event) => setRole(event.target.value)}>
              {(myRole ? assignableRoles(myRole) : []).map((item) => (
                <option key={item}>{item}</option>
              ))}
            </select>
          </label>
          <button type="submit">Add user</button>
        </form>
      )}
      {create.error && <ErrorMessage error={create.error} />}
      {change.error && <ErrorMessage error={change.error} />}
      {remove.error && <ErrorMessage error={remove.error} />}
      <ResourceTable
        caption="Members of the organization"
        error={users.error}
        rows={users.data?.data ?? []}
        rowKey={(user) => user.id}
        columns={[
          { header: 'Email', cell: (user) => user.email },
          {
            header: 'Role',
            cell: (user) =>
              can('roles') ? (
                <select
                  aria-label={`Role of ${user.email}`}
                  value={user.role}
                  onChange={(event) => change.mutate({ id: user.id, role: event.target.value })}
                >
                  {roles.map((item) => (
                    <option key={item}>{item}</option>
                  ))}
                </select>
              ) : (
                user.role
              ),
          },
          {
            header: 'Actions',
            cell: (user) =>
              mayManage(user) ? (
                <button
                  type="button"
                  aria-label={`Remove ${user.email}`}
                  onClick={() => remove.mutate(user.id)}
                >
                  Remove
                </button>
              ) : null,
          },
        ]}
      />
    </section>
  );
}
