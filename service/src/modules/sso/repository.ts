import type { Db } from '../../adapters/db/index.ts';
import { toFlag } from '../../adapters/db/index.ts';
import type { SealedColumn } from '../../secret-box.ts';

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

/** Keeps a session's sealed ID token for its sign-out; sessions past their end leave theirs. */
export async function keepIdToken(
  db: Db,
  row: { sessionTokenHash: string; organizationId: string; idTokenSealed: string; expiresAt: string },
  now: string,
): Promise<void> {
  await db.deleteFrom('ssoSessions').where('expiresAt', '<', now).execute();
  await db.insertInto('ssoSessions').values(row).execute();
}

/** The session's sealed ID token, removed: it is sent once, at sign-out. */
export async function takeIdToken(db: Db, sessionTokenHash: string): Promise<string | undefined> {
  const row = await db
    .deleteFrom('ssoSessions')
    .where('sessionTokenHash', '=', sessionTokenHash)
    .returning('idTokenSealed')
    .executeTakeFirst();
  return row?.idTokenSealed;
}

/** The sealed columns of this module, as start-up's sweep re-seals them (secret-sweep.ts). */
export const sealedSsoColumns: SealedColumn[] = [
  {
    label: 'SSO client secrets',
    mayBePlain: false,
    table: 'ssoProviders',
    pending: async (db, currentPrefix, limit) =>
      (
        await db
          .selectFrom('ssoProviders')
          .select(['organizationId', 'clientSecretSealed'])
          .where('clientSecretSealed', 'not like', `${currentPrefix}%`)
          .where('clientSecretSealed', '!=', '')
          .orderBy('organizationId')
          .limit(limit)
          .execute()
      ).map(({ organizationId, clientSecretSealed }) => ({
        row: { organizationId },
        value: clientSecretSealed,
      })),
    replace: async (tx, row, from, to) => {
      await tx
        .updateTable('ssoProviders')
        .set({ clientSecretSealed: to })
        .where('organizationId', '=', String(row.organizationId))
        .where('clientSecretSealed', '=', from)
        .execute();
    },
  },
  {
    label: 'SSO ID tokens',
    mayBePlain: false,
    table: 'ssoSessions',
    pending: async (db, currentPrefix, limit) =>
      (
        await db
          .selectFrom('ssoSessions')
          .select(['sessionTokenHash', 'idTokenSealed'])
          .where('idTokenSealed', 'not like', `${currentPrefix}%`)
          .orderBy('sessionTokenHash')
          .limit(limit)
          .execute()
      ).map(({ sessionTokenHash, idTokenSealed }) => ({ row: { sessionTokenHash }, value: idTokenSealed })),
    replace: async (tx, row, from, to) => {
      await tx
        .updateTable('ssoSessions')
        .set({ idTokenSealed: to })
        .where('sessionTokenHash', '=', String(row.sessionTokenHash))
        .where('idTokenSealed', '=', from)
        .execute();
    },
  },
];
