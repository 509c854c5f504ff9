import { sql } from 'kysely';
import type { Db } from '../../adapters/db/index.ts';

/**
 * What runs stored as artifacts (table `runArtifacts`), for `RUN_ARTIFACTS_MAX_BYTES` and
 * `ORG_ARTIFACTS_MAX_BYTES` (artifacts.ts).
 */

/** Bytes the run stored, and bytes every run of its organization stored (the run's included). */
export async function storedArtifactBytes(
  db: Db,
  run: { id: string; organizationId: string },
): Promise<{ run: number; organization: number }> {
  const row = await db
    .selectFrom('runArtifacts')
    .select([
      sql<number | string | null>`sum(case when "runId" = ${run.id} then "bytes" else 0 end)`.as('run'),
      sql<number | string | null>`sum("bytes")`.as('organization'),
    ])
    .where('organizationId', '=', run.organizationId)
    .executeTakeFirst();
  return { run: Number(row?.run ?? 0), organization: Number(row?.organization ?? 0) };
}

/** Adds `bytes` to what the run stored. */
export async function addArtifactBytes(
  db: Db,
  run: { id: string; organizationId: string },
  bytes: number,
): Promise<void> {
  if (bytes <= 0) return;
  await db
    .insertInto('runArtifacts')
    .values({ runId: run.id, organizationId: run.organizationId, bytes })
    .onConflict((oc) =>
      oc.column('runId').doUpdateSet({ bytes: sql<number>`"runArtifacts"."bytes" + excluded."bytes"` }),
    )
    .execute();
}
