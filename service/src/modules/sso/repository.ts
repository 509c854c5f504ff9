import type { Db } from '../../adapters/db/index.ts';
import { toFlag } from '../../adapters/db/index.ts';

/** A provider row with its JSON columns read (the secret stays sealed). */
export interface ProviderRow {
  organizationId: string;
  slug: string;
  emailDomains: string[];
  issuerUrl: string;
  clientId: string;
  clientSecretSealed: string;
  groupsClaim: string;
  roleMappings: Array<{ group: string; role: 'owner' | 'admin' | 'member' }>;
  defaultRole: 'owner' | 'admin' | 'member' | 'none';
  ssoRequired: boolean;
  breakGlassUserId: string | null;
  createdAt: string;
  updatedAt: string;
}

type Stored = Awaited<ReturnType<typeof selectAll>>[number];

const selectAll = (db: Db) => db.selectFrom('ssoProviders').selectAll().execute();

const rowOf = (row: Stored): ProviderRow => ({
  ...row,
  emailDomains: JSON.parse(row.emailDomains) as string[],
  roleMappings: JSON.parse(row.roleMappings) as ProviderRow['roleMappings'],
  defaultRole: row.defaultRole as ProviderRow['defaultRole'],
  ssoRequired: Boolean(row.ssoRequired),
});

export async function findProvider(db: Db, organizationId: string): Promise<ProviderRow | undefined> {
  const row = await db
    .selectFrom('ssoProviders')
    .selectAll()
    .where('organizationId', '=', organizationId)
    .executeTakeFirst();
  return row ? rowOf(row) : undefined;
}

export async function findProviderBySlug(db: Db, slug: string): Promise<ProviderRow | undefined> {
  const row = await db.selectFrom('ssoProviders').selectAll().where('slug', '=', slug).executeTakeFirst();
  return row ? rowOf(row) : undefined;
}

/** Every provider: domains live in a JSON column, and an install has a handful of providers. */
export async function listProviders(db: Db): Promise<ProviderRow[]> {
  return (await selectAll(db)).map(rowOf);
}

export async function upsertProvider(db: Db, provider: ProviderRow): Promise<void> {
  const values = {
    ...provider,
    emailDomains: JSON.stringify(provider.emailDomains),
    roleMappings: JSON.stringify(provider.roleMappings),
    ssoRequired: toFlag(provider.ssoRequired),
  };
  const { organizationId: _id, createdAt: _created, ...changes } = values;
  await db
    .insertInto('ssoProviders')
    .values(values)
    .onConflict((oc) => oc.column('organizationId').doUpdateSet(changes))
    .execute();
}

export async function deleteProvider(db: Db, organizationId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('ssoProviders')
    .where('organizationId', '=', organizationId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
