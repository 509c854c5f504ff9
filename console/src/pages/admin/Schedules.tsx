import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import cronstrue from 'cronstrue';
import { type FormEvent, useDeferredValue, useState } from 'react';
import { adminApi } from '../../api/admin.ts';
import { ErrorMessage } from '../../components/ErrorMessage.tsx';
import { useProjectScope } from '../../lib/scope.ts';

/** The cron expression in words, or why it cannot be read. */
function describeCron(cron: string): string {
  try {
    return cronstrue.toString(cron, { use24HourTimeFormat: true, verbose: true });
  } catch (error) {
    return String(error);
  }
}

/** A firing time as the schedule's time zone sees it. */
const inZone = (iso: string, timezone: string) =>
  new Intl.DateTimeFormat('en-GB', {
    timeZone: timezone,
    weekday: 'short',
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).format(new Date(iso));

/** Schedules of the project: cron in words with the next five firings, tag target, preset, enable, delete. */
export function SchedulesPage() {
  const { projectId } = useProjectScope();
  const queryClient = useQueryClient();
  const schedules = useQuery({
    queryKey: ['schedules', projectId],
    queryFn: () => adminApi.schedules(projectId),
  });
  const tags = useQuery({ queryKey: ['tags'], queryFn: adminApi.tags });
  const presets = useQuery({ queryKey: ['presets', projectId], queryFn: () => adminApi.presets(projectId) });
  const [name, setName] = useState('');
  const [cron, setCron] = useState('0 3 * * 1-5');
  const [timezone, setTimezone] = useState(Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC');
  const [tagId, setTagId] = useState('');
  const [presetId, setPresetId] = useState('');
  const deferredCron = useDeferredValue(cron);
  const deferredZone = useDeferredValue(timezone);
  const preview = useQuery({
    queryKey: ['cron-preview', deferredCron, deferredZone],
    queryFn: () => adminApi.cronPreview(deferredCron, deferredZone),
    enabled: deferredCron.trim() !== '' && deferredZone.trim() !== '',
    retry: false,
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['schedules', projectId] });
  const create = useMutation({
    mutationFn: () =>
      adminApi.createSchedule({
        name,
        projectId,
        cron,
        timezone,
        tagId: tagId || undefined,
        presetId: presetId || undefined,
      }),
    onSuccess: () => {
      setName('');
      void refresh();
    },
  });
  const toggle = useMutation({
    mutationFn: ({ id, enabled }: { id: string; enabled: boolean }) =>
      adminApi.updateSchedule(id, { enabled }),
    onSettled: refresh,
  });
  const remove = useMutation({ mutationFn: adminApi.deleteSchedule, onSettled: refresh });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  const tagName = (id: string | null) => tags.data?.data.find((tag) => tag.id === id)?.name ?? id;
  const presetName = (id: string | null | undefined) =>
    presets.data?.data.find((preset) => preset.id === id)?.name ?? '—';
  return (
    <section>
      <h1>Schedules</h1>
      <form className="admin-form" onSubmit={submit} aria-label="Create a schedule">
        <label>
          Schedule name <input value={name} onChange={(event) => setName(event.target.value)} required />
        </label>
        <label>
          Cron expression <input value={cron} onChange={(event) => setCron(event.target.value)} required />
        </label>
        <label>
          Time zone <input value={timezone} onChange={(event) => setTimezone(event.target.value)} required />
        </label>
        <label>
          Target tag{' '}
          <select value={tagId} onChange={(event) => setTagId(event.target.value)} required>
            <option value="">Choose a tag</option>
            {(tags.data?.data ?? []).map((tag) => (
              <option key={tag.id} value={tag.id}>
                {tag.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Preset{' '}
          <select value={presetId} onChange={(event) => setPresetId(event.target.value)}>
            <option value="">No preset</option>
            {(presets.data?.data ?? []).map((preset) => (
              <option key={preset.id} value={preset.id}>
                {preset.name}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">Create schedule</button>
      </form>
      <section aria-label="Cron preview" className="notice">
        <p data-testid="cron-words">{describeCron(cron)}</p>
        {preview.error ? (
          <ErrorMessage error={preview.error} title="Cannot preview" />
        ) : (
          <>
            <p>Next five firings ({deferredZone}):</p>
            <ol>
              {(preview.data?.data.nextRuns ?? []).map((run) => (
                <li key={run}>{inZone(run, deferredZone)}</li>
              ))}
            </ol>
          </>
        )}
      </section>
      {create.error && <ErrorMessage error={create.error} title="Not created" />}
      {toggle.error && <ErrorMessage error={toggle.error} />}
      {remove.error && <ErrorMessage error={remove.error} />}
      {schedules.error && <ErrorMessage error={schedules.error} />}
      <table>
        <caption>Schedules of this project</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">When</th>
            <th scope="col">Target</th>
            <th scope="col">Preset</th>
            <th scope="col">Next run</th>
            <th scope="col">Last run</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {(schedules.data?.data ?? []).map((schedule) => (
            <tr key={schedule.id}>
              <td>{schedule.name}</td>
              <td>
                <code>{schedule.cron}</code> ({schedule.timezone})
              </td>
              <td>
                {schedule.tagId
                  ? `tag ${tagName(schedule.tagId)}`
                  : `${schedule.testIds?.length ?? 0} test(s)`}
              </td>
              <td>{presetName(schedule.presetId)}</td>
              <td>
                {schedule.enabled && schedule.nextRunAt
                  ? inZone(schedule.nextRunAt, schedule.timezone)
                  : 'Disabled'}
              </td>
              <td>{schedule.lastRunAt ? inZone(schedule.lastRunAt, schedule.timezone) : '—'}</td>
              <td>
                <button
                  type="button"
                  onClick={() => toggle.mutate({ id: schedule.id, enabled: !schedule.enabled })}
                >
                  {schedule.enabled ? 'Disable' : 'Enable'}
                </button>{' '}
                <button
                  type="button"
                  aria-label={`Delete ${schedule.name}`}
                  onClick={() => remove.mutate(schedule.id)}
                >
                  Delete
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
