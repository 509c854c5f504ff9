import type { Db, Tx } from '../../adapters/db/index.ts';
import { type SealedColumn, SecretBox } from '../../secret-box.ts';

/** An environment row as stored: variables still JSON text. */
export interface EnvironmentRow {
  id: string;
  organizationId: string;
  projectId: string;
  name: string;
  baseURL: string | null;
  variables: string;
  createdAt: string;
  updatedAt: string;
}

export interface EnvironmentSecretRow {
  environmentId: string;
  name: string;
  createdAt: string;
  updatedAt: string;
}

const columns = [
  'id',
  'organizationId',
  'projectId',
  'name',
  'baseURL',
  'variables',
  'createdAt',
  'updatedAt',
] as const;

export const listEnvironments = (db: Db, projectId: string): Promise<EnvironmentRow[]> =>
  db.selectFrom('environments').select(columns).where('projectId', '=', projectId).orderBy('name').execute();

export const findEnvironment = (
  db: Db | Tx,
  projectId: string,
  environmentId: string,
): Promise<EnvironmentRow | undefined> =>
  db
    .selectFrom('environments')
    .select(columns)
    .where('projectId', '=', projectId)
    .where('id', '=', environmentId)
    .executeTakeFirst();

export const findEnvironmentByName = (
  db: Db | Tx,
  projectId: string,
  name: string,
): Promise<EnvironmentRow | undefined> =>
  db
    .selectFrom('environments')
    .select(columns)
    .where('projectId', '=', projectId)
    .where('name', '=', name)
    .executeTakeFirst();

export const findEnvironmentById = (
  db: Db | Tx,
  environmentId: string,
): Promise<EnvironmentRow | undefined> =>
  db.selectFrom('environments').select(columns).where('id', '=', environmentId).executeTakeFirst();

export const insertEnvironment = (db: Db | Tx, row: EnvironmentRow) =>
  db.insertInto('environments').values(row).execute();

export const updateEnvironment = (
  db: Db | Tx,
  environmentId: string,
  changes: { name?: string; baseURL?: string | null; variables?: string; updatedAt: string },
) => db.updateTable('environments').set(changes).where('id', '=', environmentId).executeTakeFirst();

export const deleteEnvironment = (db: Db | Tx, environmentId: string) =>
  db.deleteFrom('environments').where('id', '=', environmentId).executeTakeFirst();

/** The secrets of these environments, by name (never the values). */
export const listSecretNames = (db: Db | Tx, environmentIds: string[]): Promise<EnvironmentSecretRow[]> =>
  environmentIds.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('environmentSecrets')
        .select(['environmentId', 'name', 'createdAt', 'updatedAt'])
        .where('environmentId', 'in', environmentIds)
        .orderBy('name')
        .execute();

/** Sets (a value, sealed: secret-box.ts) or removes (`null`) the named secrets of an environment. */
export async function changeSecrets(
  tx: Tx,
  environmentId: string,
  changes: Record<string, string | null>,
  now: string,
): Promise<void> {
  for (const [name, value] of Object.entries(changes)) {
    if (value === null) {
      await tx
        .deleteFrom('environmentSecrets')
        .where('environmentId', '=', environmentId)
        .where('name', '=', name)
        .execute();
      continue;
    }
    const updated = await tx
      .updateTable('environmentSecrets')
      .set({ value, updatedAt: now })
      .where('environmentId', '=', environmentId)
      .where('name', '=', name)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 0)
      await tx
        .insertInto('environmentSecrets')
        .values({ environmentId, name, value, createdAt: now, updatedAt: now })
        .execute();
  }
}

/** Secret name → value, for the runner's environment only (never written into files). */
export async function loadSecretValues(db: Db, environmentId: string): Promise<Record<string, string>> {
  const rows = await db
    .selectFrom('environmentSecrets')
    .select(['name', 'value'])
    .where('environmentId', '=', environmentId)
    .execute();
  const box = await SecretBox.open(db);
  return Object.fromEntries(rows.map((row) => [row.name, box.openOrPlain(row.value)]));
}

/** The values as start-up's sweep seals them (secret-sweep.ts). */
export const sealedEnvironmentSecrets: SealedColumn = {
  label: 'environment secrets',
  mayBePlain: true,
  table: 'environmentSecrets',
  pending: async (db, currentPrefix, limit) =>
    (
      await db
        .selectFrom('environmentSecrets')
        .select(['environmentId', 'name', 'value'])
        .where('value', 'not like', `${currentPrefix}%`)
        .orderBy('environmentId')
        .orderBy('name')
        .limit(limit)
        .execute()
    ).map(({ environmentId, name, value }) => ({ row: { environmentId, name }, value })),
  replace: async (tx, row, from, to) => {
    await tx
      .updateTable('environmentSecrets')
      .set({ value: to })
      .where('environmentId', '=', String(row.environmentId))
      .where('name', '=', String(row.name))
      .where('value', '=', from)
      .execute();
  },
};
