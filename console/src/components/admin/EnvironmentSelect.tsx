import { useQuery } from '@tanstack/react-query';
import { environmentsApi, environmentsKey } from '../../api/environments.ts';
import { useProjectScope } from '../../lib/scope.ts';
import { Field } from './Field.tsx';

/**
 * The project's environments as a select, by name: "No environment" (or `noneLabel`, e.g. the
 * preset's) or one of them. Used wherever a run, a schedule or a preset picks one.
 */
export function EnvironmentSelect({
  value,
  onChange,
  label = 'Environment',
  noneLabel = 'No environment',
}: {
  value: string;
  onChange: (name: string) => void;
  label?: string;
  noneLabel?: string;
}) {
  const { projectId } = useProjectScope();
  const environments = useQuery({
    queryKey: environmentsKey(projectId),
    queryFn: () => environmentsApi.list(projectId),
  });
  const names = (environments.data?.data ?? []).map((environment) => environment.name);
  return (
    <Field label={label}>
      <select value={value} onChange={(event) => onChange(event.target.value)}>
        <option value="">{noneLabel}</option>
        {/* A stored name the project no longer has stays visible, so saving does not drop it silently. */}
        {value && !names.includes(value) && environments.isSuccess ? (
          <option value={value}>{value} (not found)</option>
        ) : null}
        {names.map((name) => (
          <option key={name} value={name}>
            {name}
          </option>
        ))}
      </select>
    </Field>
  );
}
