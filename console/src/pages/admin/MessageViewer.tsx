import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { adminApi } from '../../api/admin.ts';
import { Problems } from '../../components/admin/Field.tsx';
import { ResourceTable } from '../../components/admin/ResourceTable.tsx';
import { Timestamp } from '../../components/Timestamp.tsx';
import { usePermissions } from '../../lib/permissions.ts';
import { hasRemoteContent } from './mail-content.ts';
import './admin.css';

type Inbox = Awaited<ReturnType<typeof adminApi.inboxes>>['data'][number];
type Message = Awaited<ReturnType<typeof adminApi.messages>>['data'][number];
type View = 'html' | 'text' | 'links' | 'headers';

/**
 * The Headers tab: the raw header block as received (as Mailpit shows it), read with the single
 * message; messages stored before headers were kept show the fields the inbox stored.
 */
function MessageHeaders({ inbox, message }: { inbox: Inbox; message: Message }) {
  const detail = useQuery({
    queryKey: ['inbox-message', inbox.id, message.id],
    queryFn: () => adminApi.message(inbox.id, message.id),
  });
  if (detail.error) return <Problems errors={[detail.error]} />;
  if (!detail.data) return <p className="muted">Loading headers…</p>;
  const raw = detail.data.data.rawHeaders;
  if (raw !== null) {
    return (
      // A scrollable block must be reachable by keyboard (axe: scrollable-region-focusable).
      <section aria-label="Raw headers of the message">
        {/* biome-ignore lint/a11y/noNoninteractiveTabindex: focusable so the keyboard can scroll it */}
        <pre className="message-raw-headers" tabIndex={0}>
          {raw}
        </pre>
      </section>
    );
  }
  return (
    <dl className="message-headers" aria-label="Headers of the message">
      <dt>From</dt>
      <dd>{message.fromAddress}</dd>
      <dt>To</dt>
      <dd>{inbox.address}</dd>
      <dt>Subject</dt>
      <dd>{message.subject}</dd>
      <dt>Received</dt>
      <dd>
        <Timestamp iso={message.receivedAt} />
      </dd>
      <dt>Message ID</dt>
      <dd>
        <code>{message.id}</code>
      </dd>
    </dl>
  );
}

/** One message: its HTML in a sandboxed frame, its text, its links and its headers; delete. */
function MessageView({
  inbox,
  message,
  onDeleted,
}: {
  inbox: Inbox;
  message: Message;
  onDeleted: () => void;
}) {
  const [view, setView] = useState<View>(message.bodyHtml ? 'html' : 'text');
  const [remote, setRemote] = useState(false);
  const mayDelete = usePermissions().can('inboxes');
  const remove = useMutation({
    mutationFn: () => adminApi.deleteMessage(inbox.id, message.id),
    onSuccess: onDeleted,
  });
  const remoteContent = hasRemoteContent(message.bodyHtml);
  const views: Array<[View, string]> = [
    ['html', 'HTML'],
    ['text', 'Text'],
    ['links', `Links (${message.urls.length})`],
    ['headers', 'Headers'],
  ];
  const frameUrl = `/console/v1/email-inboxes/${inbox.id}/messages/${message.id}/html${remote ? '?remote=1' : ''}`;
  return (
    <article className="message" aria-label={`Message: ${message.subject || '(no subject)'}`}>
      <h3>{message.subject || '(no subject)'}</h3>
      <p className="muted">
        From {message.fromAddress} · <Timestamp iso={message.receivedAt} />
      </p>
      <div className="filters">
        {views.map(([id, label]) => (
          <button key={id} type="button" aria-pressed={view === id} onClick={() => setView(id)}>
            {label}
          </button>
        ))}{' '}
        {mayDelete && (
          <button type="button" onClick={() => remove.mutate()}>
            Delete message
          </button>
        )}
      </div>
      <Problems errors={[remove.error]} />
      {view === 'html' &&
        (message.bodyHtml ? (
          <>
            {remoteContent && !remote && (
              <p className="notice" role="note">
                Remote images and styles are blocked (they could tell the sender the mail was read).{' '}
                <button type="button" onClick={() => setRemote(true)}>
                  Load remote content
                </button>
              </p>
            )}
            {/* No allow-scripts, no allow-same-origin: the mail runs nothing and reaches no console data;
                the document's own CSP (set by the service) blocks remote loads until asked. */}
            <iframe
              className="message-frame"
              title={`HTML of ${message.subject || 'the message'}`}
              sandbox="allow-popups allow-popups-to-escape-sandbox"
              referrerPolicy="no-referrer"
              src={frameUrl}
            />
          </>
        ) : (
          <p className="muted">This message has no HTML part.</p>
        ))}
      {view === 'text' && <pre className="message-text">{message.bodyText || '(no text part)'}</pre>}
      {view === 'links' &&
        (message.urls.length === 0 ? (
          <p className="muted">No links in the HTML.</p>
        ) : (
          <ol aria-label="Links of the message">
            {message.urls.map((url) => (
              <li key={url}>
                <a href={url} target="_blank" rel="noopener noreferrer">
                  {url}
                </a>
              </li>
            ))}
          </ol>
        ))}
      {view === 'headers' && <MessageHeaders inbox={inbox} message={message} />}
    </article>
  );
}

/** The open inbox's messages, newest first, polled so new mail shows as it arrives. */
export function MessageViewer({ inbox, pollMs }: { inbox: Inbox; pollMs: number }) {
  const queryClient = useQueryClient();
  const key = ['inbox-messages', inbox.id];
  const messages = useQuery({
    queryKey: key,
    queryFn: () => adminApi.messages(inbox.id),
    refetchInterval: pollMs,
  });
  const [reading, setReading] = useState<string | undefined>();
  const list = messages.data?.data ?? [];
  const current = list.find((message) => message.id === reading);
  return (
    <section aria-label={`Messages of ${inbox.address}`}>
      <h2>Messages of {inbox.name ?? inbox.address}</h2>
      <p className="muted">
        Mail sent to <code>{inbox.address}</code> shows here as it arrives.{' '}
        <span role="status" aria-live="polite">
          {messages.isSuccess
            ? `${list.length} message${list.length === 1 ? '' : 's'}`
            : messages.isError
              ? ''
              : 'Loading…'}
        </span>
      </p>
      <div className="mail-layout">
        <ResourceTable
          caption="Messages, newest first"
          error={messages.error}
          rows={list}
          rowKey={(message) => message.id}
          selected={reading}
          empty="No mail yet: waiting for messages."
          columns={[
            { header: 'Received', cell: (message) => <Timestamp iso={message.receivedAt} /> },
            { header: 'From', cell: (message) => message.fromAddress },
            {
              header: 'Subject',
              cell: (message) => (
                <button type="button" className="link-button" onClick={() => setReading(message.id)}>
                  {message.subject || '(no subject)'}
                </button>
              ),
            },
          ]}
        />
        {current && (
          <MessageView
            key={current.id}
            inbox={inbox}
            message={current}
            onDeleted={() => {
              setReading(undefined);
              void queryClient.invalidateQueries({ queryKey: key });
              void queryClient.invalidateQueries({ queryKey: ['inboxes'] });
            }}
          />
        )}
      </div>
    </section>
  );
}
