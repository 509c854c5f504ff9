import type { Kysely } from 'kysely';

export interface InboxesTables {
  emailInboxes: {
    id: string;
    organizationId: string;
    /** Full lower-case address, `<local part>@<INBOX_DOMAIN>`. */
    address: string;
    name: string | null;
    createdAt: string;
  };
  emailMessages: {
    id: string;
    inboxId: string;
    organizationId: string;
    /** The Message-ID header, or a generated id when the mail had none. */
    sesMessageId: string;
    fromAddress: string;
    subject: string;
    bodyText: string;
    bodyHtml: string;
    /** JSON array of the http(s) links of the HTML body. */
    urls: string;
    receivedAt: string;
    createdAt: string;
    /** Arrival order inside one timestamp (monotonic per process); ties broken by it. */
    seq: number;
  };
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run before the typed schema exists
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('emailInboxes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organizationId', 'text', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('address', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text')
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('emailInboxes_org').on('emailInboxes').column('organizationId').execute();
  await db.schema
    .createTable('emailMessages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('inboxId', 'text', (c) => c.notNull().references('emailInboxes.id').onDelete('cascade'))
    .addColumn('organizationId', 'text', (c) => c.notNull())
    .addColumn('sesMessageId', 'text', (c) => c.notNull())
    .addColumn('fromAddress', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('bodyText', 'text', (c) => c.notNull())
    .addColumn('bodyHtml', 'text', (c) => c.notNull())
    .addColumn('urls', 'text', (c) => c.notNull())
    .addColumn('receivedAt', 'text', (c) => c.notNull())
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('emailMessages_inbox_received')
    .on('emailMessages')
    .columns(['inboxId', 'receivedAt', 'seq'])
    .execute();
  await db.schema.createIndex('emailMessages_received').on('emailMessages').column('receivedAt').execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('emailMessages').execute();
  await db.schema.dropTable('emailInboxes').execute();
}
