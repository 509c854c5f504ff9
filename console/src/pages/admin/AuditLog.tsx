import type { AuditLogQuery } from '@stepdeck/contract';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { adminApi, auditExportUrl } from '../../api/admin.ts';
import { Field } from '../../components/admin/Field.tsx';
import { ResourceTable } from '../../components/admin/ResourceTable.tsx';
import { RoleNote } from '../../components/admin/RoleNote.tsx';
import { Timestamp } from '../../components/Timestamp.tsx';
import { usePermissions } from '../../lib/permissions.ts';

/** A `datetime-local` value as an ISO instant (the browser's time zone). */
const isoOf = (local: string) => (local ? new Date(local).toISOString() : undefined);

/** The audit log: every changing request, newest first, with filters and CSV/JSON export. */
export function AuditLogPage() {
  const [form, setForm] = useState({ actor: '', action: '', resource: '', from: '', to: '' });
  const [query, setQuery] = useState<AuditLogQuery>({ page: 1, limit: 50 });
  const { role, can } = usePermissions();
  const log = useQuery({
    queryKey: ['audit-log', query],
    queryFn: () => adminApi.auditLog(query),
    placeholderData: keepPreviousData,
    // A member would only be refused (403): the page says who may read it instead.
    enabled: can('auditLog'),
  });
  const apply = (event: FormEvent) => {
    event.preventDefault();
    setQuery({
      page: 1,
      limit: 50,
      actor: form.actor || undefined,
      action: form.action || undefined,
      resource: form.resource || undefined,
      from: isoOf(form.from),
      to: isoOf(form.to),
    });
  };
  const field = (name: keyof typeof form) => ({
    value: form[name],
    onChange: (event: { target: { value: string } }) => setForm({ ...form, [name]: event.target.value }),
  });
  const page = log.data?.pagination;
  if (role && !can('auditLog'))
    return (
      <section>
        <h1>Audit log</h1>
        <RoleNote permission="auditLog" what="read the audit log" />
      </section>
    );
  return (
    <section>
      <h1>Audit log</h1>
      <form className="filters" onSubmit={apply} aria-label="Filter the audit log">
        <Field label="Actor">
          <input {...field('actor')} placeholder="email or key name" />
        </Field>
        <Field label="Action">
          <input {...field('action')} placeholder="e.g. DELETE /console/v1" />
        </Field>
        <Field label="Resource">
          <input {...field('resource')} placeholder="type or id" />
        </Field>
        <Field label="From">
          <input type="datetime-local" {...field('from')} />
        </Field>
        <Field label="To">
          <input type="datetime-local" {...field('to')} />
        </Field>
        <button type="submit">Apply filters</button>
      </form>
      <p>
        Export: <a href={auditExportUrl('csv', query)}>CSV</a> ·{' '}
        <a href={auditExportUrl('json', query)}>JSON</a>
      </p>
      <ResourceTable
        caption={page ? `${page.total} entries, newest first` : 'Loading…'}
        error={log.error}
        rows={log.data?.data ?? []}
        rowKey={(entry) => entry.id}
        columns={[
          { header: 'When', cell: (entry) => <Timestamp iso={entry.createdAt} /> },
          { header: 'Actor', cell: (entry) => entry.actor.label },
          { header: 'Action', cell: (entry) => <code>{entry.action}</code> },
          {
            header: 'Resource',
            cell: (entry) => (
              <>
                {entry.resourceType}
                {entry.resourceId && <span className="muted"> {entry.resourceId}</span>}
              </>
            ),
          },
          { header: 'Outcome', cell: (entry) => entry.status ?? 'unknown' },
          { header: 'Client', cell: (entry) => <span title={entry.userAgent}>{entry.ip}</span> },
        ]}
      />
      {page && !log.error && (
        <nav className="pager" aria-label="Audit log pages">
          <button
            type="button"
            disabled={page.page <= 1}
            onClick={() => setQuery({ ...query, page: page.page - 1 })}
          >
            Newer
          </button>
          <span>
            Page {page.page} of {page.totalPages}
          </span>
          <button
            type="button"
            disabled={!page.hasMore}
            onClick={() => setQuery({ ...query, page: page.page + 1 })}
          >
            Older
          </button>
        </nav>
      )}
    </section>
  );
}
