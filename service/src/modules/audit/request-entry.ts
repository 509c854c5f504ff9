import type { FastifyRequest } from 'fastify';
import type { Tx } from '../../adapters/db/index.ts';
import { insertAuditEntry } from './repository.ts';

/**
 * A changing request's audit entry (who, `METHOD route`, the resource, project, IP and user
 * agent, as the audit hook prepares it for every audited request), handed to the code that
 * opens the change's transaction so that it writes the entry there itself, as the
 * transaction's first statement: `await audit?.write(tx)`. The entry (its status still null)
 * then commits or rolls back with the change. Once the response is known, the audit hook
 * (`onSend` in routes.ts) gives it its status; if the change rolled back, or never reached its
 * transaction, the hook writes the entry then, with its status, on its own: no change without
 * its entry, no entry claiming a change that did not happen.
 */
export interface AuditEntryWriter {
  write(tx: Tx): Promise<void>;
}

/**
 * The request's prepared entry, taken out of the database adapter's hands: the adapter would
 * otherwise write it inside the request's first transaction (companion-writes.ts), which a
 * reader of the handler cannot see. From here on the request's own writes carry no entry.
 * Undefined when the request is not audited, or when a write of the request already carried its
 * entry (taken too late to move).
 */
export function auditEntryOf(request: FastifyRequest): AuditEntryWriter | undefined {
  const prepared = request.auditEntry;
  if (prepared?.companion.state !== 'pending') return undefined;
  prepared.companion.state = 'closed';
  return { write: (tx) => insertAuditEntry(tx, prepared.row) };
}
