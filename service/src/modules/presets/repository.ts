import type { Db, Tx } from '../../adapters/db/index.ts';

/** A preset row as the service hands it out: config still JSON text. */
export interface PresetRow {
  id: string;
  projectId: string;
  name: string;
  config: string;
  environment: string | null;
  createdAt: string;
  updatedAt: string;
}

const columns = ['id', 'projectId', 'name', 'config', 'environment', 'createdAt', 'updatedAt'] as const;

export const listPresets = (db: Db, projectId: string): Promise<PresetRow[]> =>
  db
    .selectFrom('presets')
    .select(columns)
    .where('projectId', '=', projectId)
    .orderBy('name', 'asc')
    .execute();

export const findPreset = (
  db: Db | Tx,
  projectId: string,
  presetId: string,
): Promise<PresetRow | undefined> =>
  db
    .selectFrom('presets')
    .select(columns)
    .where('projectId', '=', projectId)
    .where('id', '=', presetId)
    .executeTakeFirst();

export const insertPreset = (db: Db, row: PresetRow & { organizationId: string }) =>
  db.insertInto('presets').values(row).execute();

export const updatePreset = (
  db: Db,
  projectId: string,
  presetId: string,
  changes: { name?: string; config?: string; environment?: string | null; updatedAt: string },
) =>
  db
    .updateTable('presets')
    .set(changes)
    .where('projectId', '=', projectId)
    .where('id', '=', presetId)
    .executeTakeFirst();

export const deletePreset = (db: Db | Tx, projectId: string, presetId: string) =>
  db.deleteFrom('presets').where('projectId', '=', projectId).where('id', '=', presetId).executeTakeFirst();
