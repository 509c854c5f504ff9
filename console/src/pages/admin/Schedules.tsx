import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { adminApi } from '../../api/admin.ts';
import { api } from '../../api/endpoints.ts';
import { Problems } from '../../components/admin/Field.tsx';
import { ResourceTable } from '../../components/admin/ResourceTable.tsx';
import { RoleNote } from '../../components/admin/RoleNote.tsx';
import { StatusBadge } from '../../components/StatusBadge.tsx';
import { Timestamp } from '../../components/Timestamp.tsx';
import { usePermissions } from '../../lib/permissions.ts';
import { useProjectScope } from '../../lib/scope.ts';
import { type ScheduleFields, ScheduleForm } from './ScheduleForm.tsx';

/** The runs list showing one schedule's runs. */
const schedulesRunsPath = (
  scope: { projectId: string; branchId?: string | undefined },
  scheduleId: string,
) => {
  const query = new URLSearchParams({ scheduleId });
  if (scope.branchId) query.set('branch', scope.branchId);
  return `/projects/${scope.projectId}/runs?${query}`;
};

type Schedule = Awaited<ReturnType<typeof adminApi.schedules>>['data'][number];

/** The last runs a schedule started (newest first), each linked to its run page. */
function ScheduleRuns({ schedule }: { schedule: Schedule }) {
  const scope = useProjectScope();
  const runs = useQuery({
    queryKey: ['schedule-runs', schedule.id],
    queryFn: () => adminApi.scheduleRuns(scope, schedule.id),
    refetchInterval: 3000,
  });
  return (
    <section aria-label={`Last runs of ${schedule.name}`}>
      <h2>Last runs of {schedule.name}</h2>
      <p>
        <Link to={schedulesRunsPath(scope, schedule.id)}>Every run of {schedule.name}</Link>
      </p>
      <ResourceTable
        caption={`Last runs of ${schedule.name}`}
        error={runs.error}
        rows={runs.data?.data ?? []}
        rowKey={(run) => run.id}
        empty="This schedule has not started a run yet."
        columns={[
          {
            header: 'Run',
            cell: (run) => (
              <Link to={`/projects/${scope.projectId}/runs/${run.id}${scope.branchQuery}`}>{run.name}</Link>
            ),
          },
          { header: 'Status', cell: (run) => <StatusBadge status={run.status} /> },
          {
            header: 'Started',
            cell: (run) => <Timestamp iso={run.createdAt} timeZone={schedule.timezone} />,
          },
        ]}
      />
    </section>
  );
}

const bodyOf = (fields: ScheduleFields) => ({
  name: fields.name,
  cron: fields.cron,
  timezone: fields.timezone,
  ...(fields.tagId ? { tagId: fields.tagId } : {}),
  ...(fields.testIds ? { testIds: fields.testIds } : {}),
});

/** Schedules of the project: create and edit, enable/disable, trigger now, last runs, delete. */
export function SchedulesPage() {
  const scope = useProjectScope();
  const { projectId } = scope;
  const queryClient = useQueryClient();
  const schedules = useQuery({
    queryKey: ['schedules', projectId],
    queryFn: () => adminApi.schedules(projectId),
  });
  const tags = useQuery({ queryKey: ['tags'], queryFn: adminApi.tags });
  const presets = useQuery({ queryKey: ['presets', projectId], queryFn: () => adminApi.presets(projectId) });
  const tests = useQuery({ queryKey: ['schedule-targets', projectId], queryFn: () => api.tests(scope) });
  const [editing, setEditing] = useState<Schedule | undefined>();
  const [watching, setWatching] = useState<string | undefined>();
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['schedules', projectId] });
  const create = useMutation({
    mutationFn: (fields: ScheduleFields) =>
      adminApi.createSchedule({
        ...bodyOf(fields),
        projectId,
        ...(fields.presetId ? { presetId: fields.presetId } : {}),
        ...(fields.environment ? { environment: fields.environment } : {}),
      }),
    onSuccess: () => void refresh(),
  });
  const update = useMutation({
    mutationFn: ({ id, fields }: { id: string; fields: ScheduleFields }) =>
      adminApi.updateSchedule(id, {
        ...bodyOf(fields),
        presetId: fields.presetId,
        environment: fields.environment,
      }),
    onSuccess: () => {
      setEditing(undefined);
      void refresh();
    },
  });
  const toggle = useMutation({
    mutationFn: ({ id, enabled }: { id: string; enabled: boolean }) =>
      adminApi.updateSchedule(id, { enabled }),
    onSettled: refresh,
  });
  const trigger = useMutation({
    mutationFn: (schedule: Schedule) => adminApi.triggerSchedule(schedule.id),
    onSuccess: (_answer, schedule) => {
      setWatching(schedule.id);
      void refresh();
      void queryClient.invalidateQueries({ queryKey: ['schedule-runs', schedule.id] });
    },
  });
  const remove = useMutation({ mutationFn: adminApi.deleteSchedule, onSettled: refresh });
  const tagName = (id: string | null) => tags.data?.data.find((tag) => tag.id === id)?.name ?? id;
  /** A scheduled test links to its editor; a directory (no page of its own) to its CI setup. */
  const targetLink = (id: string) => {
    const test = tests.data?.children.find((item) => item.id === id);
    if (!test) return id;
    if (test.directory) return `directory ${test.name}`;
    return (
      <>
        test <Link to={`/projects/${projectId}/tests/${test.id}${scope.branchQuery}`}>{test.name}</Link>
      </>
    );
  };
  const presetName = (id: string | null | undefined) =>
    presets.data?.data.find((preset) => preset.id === id)?.name ?? '—';
  const list = schedules.data?.data ?? [];
  const watched = list.find((schedule) => schedule.id === watching);
  const { can } = usePermissions();
  const mayChange = can('schedules');
  return (
    <section>
      <h1>Schedules</h1>
      <RoleNote permission="schedules" what="create, edit or delete schedules" />
      {mayChange && (
        <ScheduleForm
          label="Create a schedule"
          submitLabel="Create schedule"
          onSubmit={(fields) => create.mutate(fields)}
          onEdit={() => create.reset()}
        />
      )}
      {create.error && <Problems errors={[create.error]} />}
      {editing && (
        <section aria-label="Edit the schedule">
          <h2>Edit {editing.name}</h2>
          <ScheduleForm
            key={editing.id}
            label="Edit schedule"
            submitLabel="Save schedule"
            initial={editing}
            onSubmit={(fields) => update.mutate({ id: editing.id, fields })}
            onEdit={() => update.reset()}
            onCancel={() => setEditing(undefined)}
          />
          <Problems errors={[update.error]} />
        </section>
      )}
      {trigger.data && watched && (
        <p role="status">
          {watched.name} started run{' '}
          <Link to={`/projects/${projectId}/runs/${trigger.data.data.runId}${scope.branchQuery}`}>
            {trigger.data.data.runId.slice(0, 8)}
          </Link>{' '}
          ({trigger.data.data.status}).
        </p>
      )}
      <Problems errors={[toggle.error, trigger.error, remove.error]} />
      <ResourceTable
        caption="Schedules of this project"
        error={schedules.error}
        rows={list}
        rowKey={(schedule) => schedule.id}
        empty={
          schedules.data ? (
            <>
              <p>
                <strong>No schedules yet.</strong> A schedule runs a tag&apos;s tests, or chosen tests and
                directories, on a cron expression in its own time zone (nightly regressions, hourly smoke
                checks).
              </p>
              <p>
                {mayChange ? 'Create one with the form above.' : 'An owner or admin creates them.'} Runs
                started by hand are on the{' '}
                <Link to={`/projects/${projectId}/tests${scope.branchQuery}`}>Tests</Link> page.
              </p>
            </>
          ) : undefined
        }
        columns={[
          {
            header: 'Name',
            cell: (schedule) => (
              <>
                {schedule.name}{' '}
                <Link
                  to={schedulesRunsPath(scope, schedule.id)}
                  aria-label={`Runs of ${schedule.name}`}
                  className="row-link"
                >
                  runs
                </Link>
              </>
            ),
          },
          {
            header: 'When',
            cell: (schedule) => (
              <>
                <code>{schedule.cron}</code> ({schedule.timezone})
              </>
            ),
          },
          {
            header: 'Target',
            cell: (schedule) =>
              schedule.tagId ? (
                `tag ${tagName(schedule.tagId)}`
              ) : (
                <ul className="inline-list">
                  {(schedule.testIds ?? []).map((id) => (
                    <li key={id}>{targetLink(id)}</li>
                  ))}
                </ul>
              ),
          },
          { header: 'Preset', cell: (schedule) => presetName(schedule.presetId) },
          { header: 'Environment', cell: (schedule) => schedule.environment ?? '—' },
          {
            header: 'Next run',
            cell: (schedule) =>
              schedule.enabled && schedule.nextRunAt ? (
                <Timestamp iso={schedule.nextRunAt} timeZone={schedule.timezone} />
              ) : (
                'Disabled'
              ),
          },
          {
            header: 'Last run',
            cell: (schedule) => <Timestamp iso={schedule.lastRunAt} timeZone={schedule.timezone} />,
          },
          {
            header: 'Actions',
            cell: (schedule) => (
              <>
                {mayChange && (
                  <>
                    <button
                      type="button"
                      aria-label={`Edit ${schedule.name}`}
                      onClick={() => {
                        update.reset();
                        setEditing(schedule);
                      }}
                    >
                      Edit
                    </button>{' '}
                    <button
                      type="button"
                      onClick={() => toggle.mutate({ id: schedule.id, enabled: !schedule.enabled })}
                    >
                      {schedule.enabled ? 'Disable' : 'Enable'}
                    </button>{' '}
                  </>
                )}
                {can('triggerSchedules') && (
                  <>
                    <button
                      type="button"
                      aria-label={`Trigger now ${schedule.name}`}
                      onClick={() => trigger.mutate(schedule)}
                    >
                      Trigger now
                    </button>{' '}
                  </>
                )}
                <button
                  type="button"
                  aria-label={`Last runs of ${schedule.name}`}
                  onClick={() => setWatching(schedule.id)}
                >
                  Last runs
                </button>{' '}
                {mayChange && (
                  <button
                    type="button"
                    aria-label={`Delete ${schedule.name}`}
                    onClick={() => remove.mutate(schedule.id)}
                  >
                    Delete
                  </button>
                )}
              </>
            ),
          },
        ]}
      />
      {watched && <ScheduleRuns key={watched.id} schedule={watched} />}
    </section>
  );
}
