import { allScopes } from '@stepdeck/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useId, useState } from 'react';
import { adminApi } from '../../api/admin.ts';
import { NameField } from '../../components/admin/Field.tsx';
import { ResourceTable } from '../../components/admin/ResourceTable.tsx';
import { RoleNote } from '../../components/admin/RoleNote.tsx';
import { ErrorMessage } from '../../components/ErrorMessage.tsx';
import { Ago, Timestamp } from '../../components/Timestamp.tsx';
import { usePermissions } from '../../lib/permissions.ts';
import './admin.css';

/** The spec's scope table, grouped by resource. */
const scopeGroups = Object.entries(
  allScopes.reduce<Record<string, string[]>>((groups, scope) => {
    const group = scope.split(':')[0] as string;
    groups[group] = [...(groups[group] ?? []), scope];
    return groups;
  }, {}),
);

type Key = Awaited<ReturnType<typeof adminApi.apiKeys>>['data'][number];

/** API keys: create (the full key shown once), list by prefix, revoke, delete. */
export function ApiKeysPage() {
  const queryClient = useQueryClient();
  const keys = useQuery({ queryKey: ['api-keys'], queryFn: adminApi.apiKeys });
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>([]);
  const [created, setCreated] = useState<{ name: string; key: string } | undefined>();
  const [copied, setCopied] = useState(false);
  const noScopeId = useId();
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['api-keys'] });
  const create = useMutation({
    mutationFn: () => adminApi.createApiKey({ name, scopes }),
    onSuccess: (answer) => {
      setCreated({ name: answer.data.name, key: answer.data.key });
      setCopied(false);
      setName('');
      setScopes([]);
      void refresh();
    },
  });
  const revoke = useMutation({ mutationFn: adminApi.revokeApiKey, onSuccess: refresh });
  const remove = useMutation({ mutationFn: adminApi.deleteApiKey, onSuccess: refresh });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  const toggle = (scope: string, on: boolean) =>
    setScopes((current) => (on ? [...current, scope] : current.filter((item) => item !== scope)));

  const mayChange = usePermissions().can('apiKeys');
  return (
    <section>
      <h1>API keys</h1>
      <RoleNote permission="apiKeys" what="manage API keys" />
      {created && (
        <div className="notice" role="status">
          <p>
            Key <strong>{created.name}</strong> created. Copy it now: it is never shown again.
          </p>
          <code data-testid="new-api-key">{created.key}</code>{' '}
          <button
            type="button"
            onClick={() => void navigator.clipboard?.writeText(created.key).then(() => setCopied(true))}
          >
            {copied ? 'Copied' : 'Copy key'}
          </button>{' '}
          <button type="button" onClick={() => setCreated(undefined)}>
            Done
          </button>
        </div>
      )}
      {mayChange && (
        <form
          onSubmit={submit}
          onChange={() => create.reset()}
          aria-label="Create an API key"
          className="admin-form"
        >
          <NameField label="Key name" value={name} onChange={setName} />
          {scopeGroups.map(([group, items]) => (
            <fieldset key={group}>
              <legend>{group}</legend>
              {items.map((scope) => (
                <label key={scope}>
                  <input
                    type="checkbox"
                    checked={scopes.includes(scope)}
                    onChange={(event) => toggle(scope, event.target.checked)}
                  />{' '}
                  {scope}
                </label>
              ))}
            </fieldset>
          ))}
          {scopes.length === 0 && (
            <p id={noScopeId} className="muted">
              Choose at least one scope.
            </p>
          )}
          <button
            type="submit"
            disabled={scopes.length === 0 || create.isPending}
            aria-describedby={scopes.length === 0 ? noScopeId : undefined}
          >
            Create key
          </button>
          {create.error && <ErrorMessage error={create.error} />}
        </form>
      )}
      {revoke.error && <ErrorMessage error={revoke.error} />}
      {remove.error && <ErrorMessage error={remove.error} />}
      <ResourceTable
        caption="Keys of the organization"
        error={keys.error}
        rows={keys.data?.data ?? []}
        rowKey={(key) => key.id}
        columns={[
          { header: 'Name', cell: (key) => key.name },
          { header: 'Prefix', cell: (key) => <code>{key.prefix}</code> },
          { header: 'Scopes', cell: (key) => key.scopes.join(', ') },
          { header: 'Created', cell: (key) => <Timestamp iso={key.createdAt} /> },
          {
            header: 'Last used',
            cell: (key) => (key.lastUsedAt ? <Ago iso={key.lastUsedAt} /> : 'Never'),
          },
          { header: 'State', cell: (key) => (key.revoked ? 'Revoked' : 'Active') },
          ...(mayChange
            ? [
                {
                  header: 'Actions',
                  cell: (key: Key) => (
                    <>
                      {!key.revoked && (
                        <button
                          type="button"
                          onClick={() => revoke.mutate(key.id)}
                          aria-label={`Revoke ${key.name}`}
                        >
                          Revoke
                        </button>
                      )}{' '}
                      <button
                        type="button"
                        onClick={() => remove.mutate(key.id)}
                        aria-label={`Delete ${key.name}`}
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
