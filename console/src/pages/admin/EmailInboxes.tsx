import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { adminApi } from '../../api/admin.ts';
import { Field, Problems } from '../../components/admin/Field.tsx';
import { ResourceTable } from '../../components/admin/ResourceTable.tsx';
import { RoleNote } from '../../components/admin/RoleNote.tsx';
import { maxResourceNameLength } from '../../lib/limits.ts';
import { usePermissions } from '../../lib/permissions.ts';
import { MessageViewer } from './MessageViewer.tsx';

/** How often the open inbox asks for new mail: arrivals show within this. */
const pollMs = 2000;

/** Email inboxes: create (within the limit), list, delete, and read their mail as it arrives. */
export function EmailInboxesPage() {
  const queryClient = useQueryClient();
  const inboxes = useQuery({ queryKey: ['inboxes'], queryFn: adminApi.inboxes });
  const limits = useQuery({ queryKey: ['inbox-limits'], queryFn: adminApi.inboxLimits, staleTime: Infinity });
  const [name, setName] = useState('');
  const [open, setOpen] = useState<string | undefined>();
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['inboxes'] });
  const create = useMutation({
    mutationFn: () => adminApi.createInbox(name.trim()),
    onSuccess: (answer) => {
      setName('');
      setOpen(answer.data.id);
      void refresh();
    },
  });
  const remove = useMutation({
    mutationFn: adminApi.deleteInbox,
    onSuccess: (_answer, id) => {
      if (open === id) setOpen(undefined);
      void refresh();
    },
  });
  const list = inboxes.data?.data ?? [];
  const max = limits.data?.data.maxPerOrg;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  const opened = list.find((inbox) => inbox.id === open);
  const mayChange = usePermissions().can('inboxes');
  return (
    <section>
      <h1>Email inboxes</h1>
      <RoleNote permission="inboxes" what="create or delete inboxes and messages" />
      <p className="muted" data-testid="inbox-usage">
        {max === undefined
          ? `${list.length} inboxes`
          : `${list.length} of ${max} inboxes used; each keeps its newest ${limits.data?.data.maxMessages} messages for ${limits.data?.data.messageRetentionHours} hours.`}
      </p>
      {mayChange && (
        <form
          className="filters"
          onSubmit={submit}
          onChange={() => create.reset()}
          aria-label="Create an inbox"
        >
          <Field label="Inbox name (optional)">
            <input
              value={name}
              maxLength={maxResourceNameLength}
              onChange={(event) => setName(event.target.value)}
            />
          </Field>
          <button type="submit" disabled={max !== undefined && list.length >= max}>
            Create inbox
          </button>
        </form>
      )}
      <Problems errors={[create.error, remove.error]} />
      <ResourceTable
        caption="Inboxes of the organization"
        error={inboxes.error}
        rows={list}
        rowKey={(inbox) => inbox.id}
        selected={open}
        empty="No inboxes yet: create one to get an address your application can send to."
        columns={[
          { header: 'Address', cell: (inbox) => <code>{inbox.address}</code> },
          { header: 'Name', cell: (inbox) => inbox.name ?? '—' },
          { header: 'Messages', cell: (inbox) => inbox.messageCount },
          {
            header: 'Actions',
            cell: (inbox) => (
              <>
                <button type="button" aria-label={`Open ${inbox.address}`} onClick={() => setOpen(inbox.id)}>
                  Open
                </button>
                {mayChange && (
                  <>
                    {' '}
                    <button
                      type="button"
                      aria-label={`Delete inbox ${inbox.address}`}
                      onClick={() => remove.mutate(inbox.id)}
                    >
                      Delete
                    </button>
                  </>
                )}
              </>
            ),
          },
        ]}
      />
      {limits.data ? (
        <SendingMail smtp={limits.data.data.smtp} example={opened?.address ?? list[0]?.address} />
      ) : null}
      {opened && <MessageViewer key={opened.id} inbox={opened} pollMs={pollMs} />}
    </section>
  );
}

/**
 * How mail reaches an inbox: the service is the receiving SMTP server (no login, no TLS), so an
 * application under test points its SMTP settings here and sends to the inbox's address.
 */
function SendingMail({ smtp, example }: { smtp: { host: string; port: number | null }; example?: string }) {
  const to = example ?? '<inbox address>';
  return (
    <section aria-labelledby="sending-mail-heading" className="sending-mail">
      <h2 id="sending-mail-heading">Sending mail to an inbox</h2>
      {smtp.port === null ? (
        <p>This service is not taking mail now (its SMTP listener is not running).</p>
      ) : (
        <>
          <p>
            Point your application&apos;s SMTP settings at this service and send to the inbox&apos;s address:
            host <code data-testid="smtp-host">{smtp.host}</code>, port{' '}
            <code data-testid="smtp-port">{smtp.port}</code>, no username or password, no TLS. Mail for any
            other address is refused.
          </p>
          <pre className="wrapped">{`SMTP_HOST=${smtp.host} SMTP_PORT=${smtp.port}
swaks --server ${smtp.host}:${smtp.port} --to ${to} --header "Subject: Hello"`}</pre>
          <p className="muted">
            In a test, the <code>waitForEmail</code> and <code>gotoEmailLink</code> steps read the mail.
          </p>
        </>
      )}
    </section>
  );
}
