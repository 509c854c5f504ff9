import type { Kysely } from 'kysely';

// Reserved for the module that owns these tables; filled in by its issue.
// biome-ignore lint/complexity/noBannedTypes: placeholder until the module adds its tables
export type InboxesTables = {};

export async function up(_db: Kysely<unknown>): Promise<void> {}

export async function down(_db: Kysely<unknown>): Promise<void> {}
