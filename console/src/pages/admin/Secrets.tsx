import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { adminApi } from '../../api/admin.ts';
import { NameField } from '../../components/admin/Field.tsx';
import { ResourceTable } from '../../components/admin/ResourceTable.tsx';
import { RoleNote } from '../../components/admin/RoleNote.tsx';
import { ErrorMessage } from '../../components/ErrorMessage.tsx';
import { usePermissions } from '../../lib/permissions.ts';
import { useProjectScope } from '../../lib/scope.ts';

/** Project secrets: names only; a value is written (or replaced) and never shown back. */
export function SecretsPage() {
  const { projectId } = useProjectScope();
  const queryClient = useQueryClient();
  const secrets = useQuery({ queryKey: ['secrets', projectId], queryFn: () => adminApi.secrets(projectId) });
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['secrets', projectId] });
  const save = useMutation({
    mutationFn: () => adminApi.setSecret(projectId, name, value),
    onSuccess: () => {
      setName('');
      setValue('');
      void refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (secret: string) => adminApi.deleteSecret(projectId, secret),
    onSettled: refresh,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  const mayChange = usePermissions().can('secrets');
  return (
    <section>
      <h1>Secrets</h1>
      <RoleNote permission="secrets" what="set or delete secrets" />
      <p className="muted">Values are write-only: setting an existing name replaces its value.</p>
      {mayChange && (
        <form className="filters" onSubmit={submit} onChange={() => save.reset()} aria-label="Set a secret">
          <NameField label="Secret name" value={name} onChange={setName} />
          <label>
            Value{' '}
            <input
              type="password"
              autoComplete="new-password"
              value={value}
              onChange={(event) => setValue(event.target.value)}
            />
          </label>
          <button type="submit">Save secret</button>
        </form>
      )}
      {save.error && <ErrorMessage error={save.error} />}
      {remove.error && <ErrorMessage error={remove.error} />}
      <ResourceTable
        caption="Secrets of this project"
        error={secrets.error}
        rows={secrets.data?.data ?? []}
        rowKey={(secret) => secret.name}
        columns={[
          { header: 'Name', cell: (secret) => <code>{secret.name}</code> },
          ...(mayChange
            ? [
                {
                  header: 'Actions',
                  cell: (secret: { name: string }) => (
                    <button
                      type="button"
                      aria-label={`Delete ${secret.name}`}
                      onClick={() => remove.mutate(secret.name)}
                    >
                      Delete
                    </button>
                  ),
                },
              ]
            : []),
        ]}
      />
    </section>
  );
}
