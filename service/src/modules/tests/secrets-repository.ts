import type { Db } from '../../adapters/db/index.ts';
import { appError } from '../../errors.ts';
import { findProject } from '../accounts/public.ts';

/** Project secrets: values are write-only here (listed by name, never returned). */

/** The project, when it belongs to the organization. */
export async function requireProjectOf(db: Db, organizationId: string, projectId: string): Promise<string> {
  const project = await findProject(db, organizationId, projectId);
  if (!project) throw appError('PROJECT_NOT_FOUND');
  return project.id;
}

/** Creates or replaces a secret; `created` tells which (201 or 200). */
export async function putSecret(db: Db, projectId: string, name: string, value: string, now: string) {
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
  return Object.fromEntries(rows.map((row) => [row.name, row.value]));
}
