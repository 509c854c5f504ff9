import type { Environment, EnvironmentCreateBody } from '@stepdeck/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { environmentsApi, environmentsKey } from '../../api/environments.ts';
import { ResourceTable } from '../../components/admin/ResourceTable.tsx';
import { RoleNote } from '../../components/admin/RoleNote.tsx';
import { ErrorMessage } from '../../components/ErrorMessage.tsx';
import { usePermissions } from '../../lib/permissions.ts';
import { useProjectScope } from '../../lib/scope.ts';
import { EnvironmentForm } from './EnvironmentForm.tsx';
import './admin.css';

/** Environments of the project: named base URL, variables and secrets a run, schedule or preset picks. */
export function EnvironmentsPage() {
  const { projectId } = useProjectScope();
  const queryClient = useQueryClient();
  const environments = useQuery({
    queryKey: environmentsKey(projectId),
    queryFn: () => environmentsApi.list(projectId),
  });
  /** The form: closed, a new environment, or the one being edited. */
  const [form, setForm] = useState<{ editing: Environment | undefined } | undefined>();
  const refresh = () => queryClient.invalidateQueries({ queryKey: environmentsKey(projectId) });
  const save = useMutation({
    mutationFn: (body: EnvironmentCreateBody) =>
      form?.editing
        ? environmentsApi.update(projectId, form.editing.id, body)
        : environmentsApi.create(projectId, body),
    onSuccess: () => {
      setForm(undefined);
      void refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (id: string) => environmentsApi.remove(projectId, id),
    onSettled: refresh,
  });
  const mayChange = usePermissions().can('environments');
  const open = (editing: Environment | undefined) => {
    save.reset();
    setForm({ editing });
  };
  return (
    <section>
      <h1>Environments</h1>
      <p className="muted">
        Run the same tests against staging or production: a run, a schedule, a preset, the action (
        <code>environment:</code>) and the CLI (<code>--environment</code>) pick one by name.
      </p>
      <RoleNote permission="environments" what="create, edit or delete environments" />
      {mayChange && !form && (
        <button type="button" onClick={() => open(undefined)}>
          New environment
        </button>
      )}
      {form && (
        <EnvironmentForm
          key={form.editing?.id ?? 'new'}
          editing={form.editing}
          saving={save.isPending}
          onSave={(body) => save.mutate(body)}
          onCancel={() => setForm(undefined)}
        />
      )}
      {save.error && <ErrorMessage error={save.error} title="Not saved" />}
      {remove.error && <ErrorMessage error={remove.error} title="Not deleted" />}
      <ResourceTable
        caption="Environments of this project"
        error={environments.error}
        rows={environments.data?.data ?? []}
        rowKey={(environment) => environment.id}
        empty={
          environments.isPending
            ? 'Loading…'
            : 'No environments yet. Create one (staging, production) to run the same tests against each.'
        }
        columns={[
          { header: 'Name', cell: (environment) => <code>{environment.name}</code> },
          {
            header: 'Base URL',
            cell: (environment) => environment.baseURL ?? <span className="muted">none</span>,
          },
          {
            header: 'Variables',
            cell: (environment) => Object.keys(environment.variables).join(', ') || '—',
          },
          {
            header: 'Secrets',
            cell: (environment) => environment.secrets.map((secret) => secret.name).join(', ') || '—',
          },
          ...(mayChange
            ? [
                {
                  header: 'Actions',
                  cell: (environment: Environment) => (
                    <span className="row-actions">
                      <button
                        type="button"
                        aria-label={`Edit ${environment.name}`}
                        onClick={() => open(environment)}
                      >
                        Edit
                      </button>
                      <button
                        type="button"
                        aria-label={`Delete ${environment.name}`}
                        onClick={() => remove.mutate(environment.id)}
                      >
                        Delete
                      </button>
                    </span>
                  ),
                },
              ]
            : []),
        ]}
      />
    </section>
  );
}
