import type { Db } from '../../adapters/db/index.ts';
import { appError } from '../../errors.ts';
import { type SealedColumn, SecretBox } from '../../secret-box.ts';

/**
 * Project secrets: values are write-only here (listed by name, never returned) and stored
 * sealed (secret-box.ts), opened only for a run.
 */

/** Creates or replaces a secret; `created` tells which (201 or 200). */
export async function putSecret(db: Db, projectId: string, name: string, plain: string, now: string) {
  const value = (await SecretBox.open(db)).seal(plain);
  return db.transaction().execute(async (trx) => {
    const existing = await trx
      .selectFrom('projectSecrets')
      .select('createdAt')
      .where('projectId', '=', projectId)
      .where('name', '=', name)
      .executeTakeFirst();
    if (existing)
      await trx
        .updateTable('projectSecrets')
        .set({ value, updatedAt: now })
        .where('projectId', '=', projectId)
        .where('name', '=', name)
        .execute();
    else
      await trx
        .insertInto('projectSecrets')
        .values({ projectId, name, value, createdAt: now, updatedAt: now })
        .execute();
    return { created: !existing, secret: { name, createdAt: existing?.createdAt ?? now, updatedAt: now } };
  });
}

export async function listSecrets(db: Db, projectId: string) {
  return db
    .selectFrom('projectSecrets')
    .select(['name', 'createdAt', 'updatedAt'])
    .where('projectId', '=', projectId)
    .orderBy('name')
    .execute();
}

export async function deleteSecret(db: Db, projectId: string, name: string): Promise<void> {
  const result = await db
    .deleteFrom('projectSecrets')
    .where('projectId', '=', projectId)
    .where('name', '=', name)
    .executeTakeFirst();
  if (Number(result.numDeletedRows) === 0) throw appError('SECRET_NOT_FOUND');
}

/** Secret name → value, for the runner's environment only (never written into files). */
export async function loadProjectSecrets(db: Db, projectId: string): Promise<Record<string, string>> {
  const rows = await db
    .selectFrom('projectSecrets')
    .select(['name', 'value'])
    .where('projectId', '=', projectId)
    .execute();
  const box = await SecretBox.open(db);
  return Object.fromEntries(rows.map((row) => [row.name, box.openOrPlain(row.value)]));
}

/** The values as start-up's sweep seals them (secret-sweep.ts). */
export const sealedProjectSecrets: SealedColumn = {
  label: 'project secrets',
  mayBePlain: true,
  table: 'projectSecrets',
  pending: async (db, currentPrefix, limit) =>
    (
      await db
        .selectFrom('projectSecrets')
        .select(['projectId', 'name', 'value'])
        .where('value', 'not like', `${currentPrefix}%`)
        .orderBy('projectId')
        .orderBy('name')
        .limit(limit)
        .execute()
    ).map(({ projectId, name, value }) => ({ row: { projectId, name }, value })),
  replace: async (tx, row, from, to) => {
    await tx
      .updateTable('projectSecrets')
      .set({ value: to })
      .where('projectId', '=', String(row.projectId))
      .where('name', '=', String(row.name))
      .where('value', '=', from)
      .execute();
  },
};
