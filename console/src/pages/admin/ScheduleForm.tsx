import { useQuery } from '@tanstack/react-query';
import cronstrue from 'cronstrue';
import { type FormEvent, useDeferredValue, useState } from 'react';
import { adminApi } from '../../api/admin.ts';
import { api } from '../../api/endpoints.ts';
import { EnvironmentSelect } from '../../components/admin/EnvironmentSelect.tsx';
import { Field, NameField } from '../../components/admin/Field.tsx';
import { ErrorMessage } from '../../components/ErrorMessage.tsx';
import { Timestamp } from '../../components/Timestamp.tsx';
import { useProjectScope } from '../../lib/scope.ts';
import './admin.css';

/**
 * The cron expression in words; undefined when it cannot be read, since the service's preview
 * then says why (in the words that saving would give), and one message is enough.
 */
function describeCron(cron: string): string | undefined {
  try {
    return cronstrue.toString(cron, { use24HourTimeFormat: true, verbose: true });
  } catch {
    return undefined;
  }
}

type Schedule = Awaited<ReturnType<typeof adminApi.schedules>>['data'][number];

/** What the form sends: one target (a tag, or tests and directories), the preset or none. */
export interface ScheduleFields {
  name: string;
  cron: string;
  timezone: string;
  tagId?: string | undefined;
  testIds?: string[] | undefined;
  presetId: string | null;
  /** The environment its runs use, by name; null for none (the preset's, if it names one). */
  environment: string | null;
}

/** Create and edit a schedule: name, cron (in words, next five firings), zone, target, preset. */
export function ScheduleForm({
  label,
  submitLabel,
  initial,
  onSubmit,
  onEdit,
  onCancel,
}: {
  label: string;
  submitLabel: string;
  initial?: Schedule;
  onSubmit: (fields: ScheduleFields) => void;
  /** Any field changed: the page drops the service's answer to what the form held before. */
  onEdit?: () => void;
  onCancel?: () => void;
}) {
  const scope = useProjectScope();
  const { projectId } = scope;
  const tags = useQuery({ queryKey: ['tags'], queryFn: adminApi.tags });
  const presets = useQuery({ queryKey: ['presets', projectId], queryFn: () => adminApi.presets(projectId) });
  const tests = useQuery({ queryKey: ['schedule-targets', projectId], queryFn: () => api.tests(scope) });
  const [name, setName] = useState(initial?.name ?? '');
  const [cron, setCron] = useState(initial?.cron ?? '0 3 * * 1-5');
  const [timezone, setTimezone] = useState(
    initial?.timezone ?? (Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC'),
  );
  const [targetType, setTargetType] = useState<'tag' | 'tests'>(initial?.testIds?.length ? 'tests' : 'tag');
  const [tagId, setTagId] = useState(initial?.tagId ?? '');
  const [testId, setTestId] = useState(initial?.testIds?.[0] ?? '');
  const [presetId, setPresetId] = useState(initial?.presetId ?? '');
  const [environment, setEnvironment] = useState(initial?.environment ?? '');
  const deferredCron = useDeferredValue(cron);
  const deferredZone = useDeferredValue(timezone);
  const preview = useQuery({
    queryKey: ['cron-preview', deferredCron, deferredZone],
    queryFn: () => adminApi.cronPreview(deferredCron, deferredZone),
    enabled: deferredCron.trim() !== '' && deferredZone.trim() !== '',
    retry: false,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit({
      name,
      cron,
      timezone,
      ...(targetType === 'tag' ? { tagId } : { testIds: [testId] }),
      presetId: presetId || null,
      environment: environment || null,
    });
  };
  const words = describeCron(cron);
  // The form's own controls carry a prefix when editing, so both forms can be on the page.
  const idPrefix = initial ? `edit-${initial.id}` : 'create';
  return (
    <>
      <form className="admin-form" onSubmit={submit} onChange={onEdit} aria-label={label}>
        <NameField label="Schedule name" value={name} onChange={setName} />
        <Field label="Cron expression">
          <input value={cron} onChange={(event) => setCron(event.target.value)} required />
        </Field>
        <Field label="Time zone">
          <input value={timezone} onChange={(event) => setTimezone(event.target.value)} required />
        </Field>
        <fieldset>
          <legend>Target</legend>
          <label>
            <input
              type="radio"
              name={`${idPrefix}-target`}
              checked={targetType === 'tag'}
              onChange={() => setTargetType('tag')}
            />{' '}
            Every test with a tag
          </label>
          <label>
            <input
              type="radio"
              name={`${idPrefix}-target`}
              checked={targetType === 'tests'}
              onChange={() => setTargetType('tests')}
            />{' '}
            A test or directory
          </label>
          {targetType === 'tag' ? (
            <Field label="Target tag">
              <select value={tagId} onChange={(event) => setTagId(event.target.value)} required>
                <option value="">Choose a tag</option>
                {(tags.data?.data ?? []).map((tag) => (
                  <option key={tag.id} value={tag.id}>
                    {tag.name}
                  </option>
                ))}
              </select>
            </Field>
          ) : (
            <Field label="Target test or directory">
              <select value={testId} onChange={(event) => setTestId(event.target.value)} required>
                <option value="">Choose a test or directory</option>
                {(tests.data?.children ?? []).map((test) => (
                  <option key={test.id} value={test.id}>
                    {test.directory ? `${test.name} (directory)` : test.name}
                  </option>
                ))}
              </select>
            </Field>
          )}
        </fieldset>
        <Field label="Preset">
          <select value={presetId} onChange={(event) => setPresetId(event.target.value)}>
            <option value="">No preset</option>
            {(presets.data?.data ?? []).map((preset) => (
              <option key={preset.id} value={preset.id}>
                {preset.name}
              </option>
            ))}
          </select>
        </Field>
        <EnvironmentSelect value={environment} onChange={setEnvironment} noneLabel="The preset's (or none)" />
        <button type="submit">{submitLabel}</button>
        {onCancel && (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        )}
      </form>
      <section
        aria-label={initial ? 'Cron preview of the edited schedule' : 'Cron preview'}
        className="notice"
      >
        {words && <p data-testid="cron-words">{words}</p>}
        {preview.error ? (
          <ErrorMessage error={preview.error} title="Cannot preview" />
        ) : (
          <>
            <p>Next five firings ({deferredZone}):</p>
            <ol>
              {(preview.data?.data.nextRuns ?? []).map((run) => (
                <li key={run}>
                  <Timestamp iso={run} timeZone={deferredZone} weekday />
                </li>
              ))}
            </ol>
          </>
        )}
      </section>
    </>
  );
}
