import type { Db } from '../../adapters/db/index.ts';

export interface InstallSettingRow {
  key: string;
  value: string;
  updatedAt: string;
  updatedBy: string | null;
}

export async function settingRows(db: Db): Promise<InstallSettingRow[]> {
  return db.selectFrom('installSettings').select(['key', 'value', 'updatedAt', 'updatedBy']).execute();
}

/** Writes each given setting (the last writer wins), in one transaction. */
export async function writeSettingRows(db: Db, rows: InstallSettingRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.transaction().execute(async (trx) => {
    for (const row of rows)
      await trx
        .insertInto('installSettings')
        .values(row)
        .onConflict((oc) =>
          oc
            .column('key')
            .doUpdateSet({ value: row.value, updatedAt: row.updatedAt, updatedBy: row.updatedBy }),
        )
        .execute();
  });
}
