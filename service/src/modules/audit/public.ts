/**
 * What other modules may use of the audit module: a route whose change is one transaction takes
 * its request's audit entry and writes it in that transaction, where the transaction opens (the
 * run triggers). Every other audited request's entry is written by the audit hooks.
 */
export { type AuditEntryWriter, auditEntryOf } from './request-entry.ts';
