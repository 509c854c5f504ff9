import type { Db } from './adapters/db/index.ts';
import { StartupError } from './config.ts';
import { sealedEnvironmentSecrets } from './modules/environments/public.ts';
import { sealedSmtpRelayPassword } from './modules/install-settings/public.ts';
import { sealedSsoColumns } from './modules/sso/public.ts';
import { sealedProjectSecrets } from './modules/tests/public.ts';
import { type SealedColumn, SecretBox, SecretKeyMismatch } from './secret-box.ts';

/** Rows re-sealed per transaction: short transactions, so a large install does not hold writers. */
export const sweepBatchSize = 200;

const sealedColumns: SealedColumn[] = [
  sealedProjectSecrets,
  sealedEnvironmentSecrets,
  sealedSmtpRelayPassword,
  ...sealedSsoColumns,
];

/**
 * At start-up, every stored secret not sealed under the current key is sealed under it: values
 * stored in clear before secrets were sealed, values under `SECRET_ENCRYPTION_KEY_PREVIOUS`
 * (rotation) or under the key the database held before `SECRET_ENCRYPTION_KEY` was set. A
 * value sealed under a key this process was not given stops the start with one line naming
 * `SECRET_ENCRYPTION_KEY` (a restore into an install with another key, a mistyped key).
 * Idempotent: a second run finds nothing.
 */
export async function sealStoredSecrets(
  db: Db,
  box: SecretBox,
): Promise<{ sealed: number; resealed: number; plainTables: string[] }> {
  const counts = { sealed: 0, resealed: 0 };
  const plainTables = new Set<string>();
  for (const column of sealedColumns) {
    for (;;) {
      const batch = await column.pending(db, box.currentPrefix, sweepBatchSize);
      if (batch.length === 0) break;
      const changes = batch.map(({ row, value }) => {
        const plain = column.mayBePlain && !SecretBox.isSealed(value);
        return { row, from: value, to: box.seal(plain ? value : opened(box, column, value)), plain };
      });
      await db.transaction().execute(async (tx) => {
        for (const change of changes) await column.replace(tx, change.row, change.from, change.to);
      });
      for (const change of changes) counts[change.plain ? 'sealed' : 'resealed']++;
      if (changes.some((change) => change.plain)) plainTables.add(column.table);
      if (batch.length < sweepBatchSize) break;
    }
  }
  return { ...counts, plainTables: [...plainTables] };
}

function opened(box: SecretBox, column: SealedColumn, value: string): string {
  try {
    return box.open(value);
  } catch (error) {
    if (error instanceof SecretKeyMismatch)
      throw new StartupError(`Cannot open the stored ${column.label}: ${error.message}`);
    throw new StartupError(
      `Cannot open the stored ${column.label} with SECRET_ENCRYPTION_KEY: a value was altered or is not a sealed secret (${(error as Error).message})`,
    );
  }
}
