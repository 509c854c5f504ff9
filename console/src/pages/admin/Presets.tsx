import { runConfig } from '@stepdeck/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { adminApi } from '../../api/admin.ts';
import { EnvironmentSelect } from '../../components/admin/EnvironmentSelect.tsx';
import { Field } from '../../components/admin/Field.tsx';
import { ResourceTable } from '../../components/admin/ResourceTable.tsx';
import { RoleNote } from '../../components/admin/RoleNote.tsx';
import { StartRunWithPreset } from '../../components/admin/StartRunWithPreset.tsx';
import { ErrorMessage } from '../../components/ErrorMessage.tsx';
import { maxPresetNameLength } from '../../lib/limits.ts';
import { usePermissions } from '../../lib/permissions.ts';
import { useProjectScope } from '../../lib/scope.ts';
import './admin.css';

/** Config presets of the project: named run configurations a schedule or a run can pick. */
export function PresetsPage() {
  const { projectId } = useProjectScope();
  const queryClient = useQueryClient();
  const presets = useQuery({ queryKey: ['presets', projectId], queryFn: () => adminApi.presets(projectId) });
  const [name, setName] = useState('');
  const [config, setConfig] = useState('{\n  "use": { "browserName": "chromium" },\n  "retries": 1\n}');
  const [environment, setEnvironment] = useState('');
  const [problem, setProblem] = useState<string | undefined>();
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['presets', projectId] });
  const create = useMutation({
    mutationFn: (parsed: unknown) =>
      adminApi.createPreset(projectId, {
        name,
        config: runConfig.parse(parsed),
        ...(environment ? { environment } : {}),
      }),
    onSuccess: () => {
      setName('');
      void refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (id: string) => adminApi.deletePreset(projectId, id),
    onSettled: refresh,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    let parsed: unknown;
    try {
      parsed = JSON.parse(config);
    } catch (error) {
      setProblem(`Configuration is not valid JSON: ${(error as Error).message}`);
      return;
    }
    const checked = runConfig.safeParse(parsed);
    if (!checked.success) {
      setProblem(checked.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; '));
      return;
    }
    setProblem(undefined);
    create.mutate(parsed);
  };
  // Errors speak of what the form holds: a change makes both its own and the service's stale.
  const edited = () => {
    setProblem(undefined);
    create.reset();
  };
  const mayChange = usePermissions().can('presets');
  return (
    <section>
      <h1>Config presets</h1>
      <RoleNote permission="presets" what="create or delete presets" />
      {mayChange && (
        <form className="admin-form" onSubmit={submit} onChange={edited} aria-label="Create a preset">
          <Field label="Preset name">
            <input
              value={name}
              onChange={(event) => setName(event.target.value)}
              required
              maxLength={maxPresetNameLength}
            />
          </Field>
          <Field label="Run configuration (JSON)">
            <textarea rows={6} value={config} onChange={(event) => setConfig(event.target.value)} />
          </Field>
          <EnvironmentSelect value={environment} onChange={setEnvironment} />
          <button type="submit">Create preset</button>
        </form>
      )}
      {problem && (
        <div role="alert" className="error-box">
          {problem}
        </div>
      )}
      {create.error && <ErrorMessage error={create.error} />}
      {remove.error && <ErrorMessage error={remove.error} title="Not deleted" />}
      <ResourceTable
        caption="Presets of this project"
        error={presets.error}
        rows={presets.data?.data ?? []}
        rowKey={(preset) => preset.id}
        columns={[
          { header: 'Name', cell: (preset) => preset.name },
          { header: 'Configuration', cell: (preset) => <code>{JSON.stringify(preset.config)}</code> },
          { header: 'Environment', cell: (preset) => preset.environment ?? '—' },
          ...(mayChange
            ? [
                {
                  header: 'Actions',
                  cell: (preset: { id: string; name: string }) => (
                    <button
                      type="button"
                      aria-label={`Delete ${preset.name}`}
                      onClick={() => remove.mutate(preset.id)}
                    >
                      Delete
                    </button>
                  ),
                },
              ]
            : []),
        ]}
      />
      <section aria-label="Start a run">
        <h2>Start a run with a preset</h2>
        <p className="muted">
          The run takes the preset&apos;s configuration and records which preset it used.
        </p>
        <StartRunWithPreset />
      </section>
    </section>
  );
}
