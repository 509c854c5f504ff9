import type { Db } from '../../adapters/db/index.ts';
import type { SealedColumn } from '../../secret-box.ts';

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

/** The SMTP relay's password inside its setting's JSON, as start-up's sweep re-seals it (secret-sweep.ts). */
export const sealedSmtpRelayPassword: SealedColumn = {
  label: 'SMTP relay password',
  mayBePlain: false,
  table: 'installSettings',
  pending: async (db, currentPrefix) => {
    const row = await db
      .selectFrom('installSettings')
      .select('value')
      .where('key', '=', 'smtpRelay')
      .executeTakeFirst();
    const sealed = row ? passwordSealedOf(row.value) : null;
    return sealed && !sealed.startsWith(currentPrefix) ? [{ row: { key: 'smtpRelay' }, value: sealed }] : [];
  },
  replace: async (tx, _row, from, to) => {
    const row = await tx
      .selectFrom('installSettings')
      .select('value')
      .where('key', '=', 'smtpRelay')
      .executeTakeFirst();
    if (!row || passwordSealedOf(row.value) !== from) return;
    const relay = JSON.parse(row.value) as Record<string, unknown>;
    await tx
      .updateTable('installSettings')
      .set({ value: JSON.stringify({ ...relay, passwordSealed: to }) })
      .where('key', '=', 'smtpRelay')
      .execute();
  },
};

function passwordSealedOf(json: string): string | null {
  try {
    const value = (JSON.parse(json) as { passwordSealed?: unknown } | null)?.passwordSealed;
    return typeof value === 'string' && value !== '' ? value : null;
  } catch {
    return null;
  }
}
