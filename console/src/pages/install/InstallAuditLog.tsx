import type { InstallAuditLogQuery } from '@stepdeck/contract';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { installApi } from '../../api/install.ts';
import { ResourceTable } from '../../components/admin/ResourceTable.tsx';
import { Timestamp } from '../../components/Timestamp.tsx';

/** The install's audit log: every organization's changing requests, newest first, paged. */
export function InstallAuditLog(props: { enabled: boolean }) {
  const [query, setQuery] = useState<InstallAuditLogQuery>({ page: 1, limit: 25 });
  const log = useQuery({
    queryKey: ['install', 'audit-log', query],
    queryFn: () => installApi.auditLog(query),
    placeholderData: keepPreviousData,
    enabled: props.enabled,
  });
  const page = log.data?.pagination;
  return (
    <section aria-labelledby="install-audit-log">
      <h2 id="install-audit-log">Audit log</h2>
      <ResourceTable
        caption={
          page
            ? `${page.total} ${page.total === 1 ? 'entry' : 'entries'} across organizations, newest first`
            : 'Loading…'
        }
        error={log.error}
        rows={log.data?.data ?? []}
        rowKey={(entry) => entry.id}
        empty={<p>Nothing recorded yet.</p>}
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
        ]}
      />
      {page && !log.error && page.total > 0 ? (
        <nav className="pager" aria-label="Install audit log pages">
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
      ) : null}
    </section>
  );
}
