import { useMutation, useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link } from 'react-router';
import { adminApi } from '../../api/admin.ts';
import { api } from '../../api/endpoints.ts';
import { useProjectScope } from '../../lib/scope.ts';
import { ErrorMessage } from '../ErrorMessage.tsx';
import { EnvironmentSelect } from './EnvironmentSelect.tsx';
import { Field } from './Field.tsx';

/** The project's presets as a select: "No preset" or one of them. Reusable wherever a run starts. */
export function PresetSelect({
  value,
  onChange,
  label = 'Preset',
}: {
  value: string;
  onChange: (presetId: string) => void;
  label?: string;
}) {
  const { projectId } = useProjectScope();
  const presets = useQuery({ queryKey: ['presets', projectId], queryFn: () => adminApi.presets(projectId) });
  return (
    <Field label={label}>
      <select value={value} onChange={(event) => onChange(event.target.value)}>
        <option value="">No preset</option>
        {(presets.data?.data ?? []).map((preset) => (
          <option key={preset.id} value={preset.id}>
            {preset.name}
          </option>
        ))}
      </select>
    </Field>
  );
}

/**
 * Starts a run of a test, a directory or a tag with a chosen preset; the run records the preset.
 * `target` fixes what runs (e.g. a test page); without it the user picks a test or a tag.
 */
export function StartRunWithPreset({
  target,
  initialPresetId = '',
}: {
  target?: { testId: string } | { tagId: string };
  initialPresetId?: string;
}) {
  const scope = useProjectScope();
  const tests = useQuery({
    queryKey: ['schedule-targets', scope.projectId],
    queryFn: () => api.tests(scope),
    enabled: !target,
  });
  const tags = useQuery({ queryKey: ['tags'], queryFn: adminApi.tags, enabled: !target });
  const [choice, setChoice] = useState('');
  const [presetId, setPresetId] = useState(initialPresetId);
  const [environment, setEnvironment] = useState('');
  const start = useMutation({
    mutationFn: () => {
      const chosen =
        target ?? (choice.startsWith('tag:') ? { tagId: choice.slice(4) } : { testId: choice.slice(5) });
      return adminApi.startRun(scope, chosen, presetId || undefined, undefined, environment || undefined);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    start.mutate();
  };
  return (
    <form className="filters" onSubmit={submit} aria-label="Start a run with a preset">
      {!target && (
        <Field label="What to run">
          <select value={choice} onChange={(event) => setChoice(event.target.value)} required>
            <option value="">Choose a test, directory or tag</option>
            <optgroup label="Tests and directories">
              {(tests.data?.children ?? []).map((test) => (
                <option key={test.id} value={`test:${test.id}`}>
                  {test.directory ? `${test.name} (directory)` : test.name}
                </option>
              ))}
            </optgroup>
            <optgroup label="Tags">
              {(tags.data?.data ?? []).map((tag) => (
                <option key={tag.id} value={`tag:${tag.id}`}>
                  tag {tag.name}
                </option>
              ))}
            </optgroup>
          </select>
        </Field>
      )}
      <PresetSelect label="Run with preset" value={presetId} onChange={setPresetId} />
      <EnvironmentSelect
        label="Run in environment"
        noneLabel="The preset's (or none)"
        value={environment}
        onChange={setEnvironment}
      />
      <button type="submit" disabled={start.isPending}>
        Start run
      </button>
      {start.data && (
        <p role="status">
          Run started:{' '}
          <Link to={`/projects/${scope.projectId}/runs/${start.data.data.runId}${scope.branchQuery}`}>
            open run {start.data.data.runId.slice(0, 8)}
          </Link>
        </p>
      )}
      {start.error && <ErrorMessage error={start.error} title="Not started" />}
    </form>
  );
}
