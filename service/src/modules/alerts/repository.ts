import type { Db } from '../../adapters/db/index.ts';
import type { Database } from '../../adapters/db/schema.ts';

export type AlertChannelRow = Database['alertChannels'];

export async function listChannels(db: Db, organizationId: string, projectId: string) {
  return db
    .selectFrom('alertChannels')
    .selectAll()
    .where('organizationId', '=', organizationId)
    .where('projectId', '=', projectId)
    .orderBy('createdAt', 'asc')
    .orderBy('id', 'asc')
    .execute();
}

export async function findChannel(db: Db, organizationId: string, projectId: string, id: string) {
  return db
    .selectFrom('alertChannels')
    .selectAll()
    .where('id', '=', id)
    .where('organizationId', '=', organizationId)
    .where('projectId', '=', projectId)
    .executeTakeFirst();
}

export async function insertChannel(db: Db, row: AlertChannelRow): Promise<void> {
  await db.insertInto('alertChannels').values(row).execute();
}

export async function updateChannel(db: Db, id: string, changes: Partial<AlertChannelRow>): Promise<void> {
  await db.updateTable('alertChannels').set(changes).where('id', '=', id).execute();
}

export async function deleteChannel(db: Db, organizationId: string, projectId: string, id: string) {
  const result = await db
    .deleteFrom('alertChannels')
    .where('id', '=', id)
    .where('organizationId', '=', organizationId)
    .where('projectId', '=', projectId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** The enabled channels a run of the project (fired by `scheduleId`, if any) may alert. */
export async function channelsForRun(db: Db, projectId: string, scheduleId: string | null) {
  return db
    .selectFrom('alertChannels')
    .selectAll()
    .where('projectId', '=', projectId)
    .where('enabled', '=', 1)
    .where((eb) =>
      scheduleId === null
        ? eb('scheduleId', 'is', null)
        : eb.or([eb('scheduleId', 'is', null), eb('scheduleId', '=', scheduleId)]),
    )
    .execute();
}

export async function recordOutcome(
  db: Db,
  id: string,
  outcome: { lastSentAt: string | null; lastError: string | null },
): Promise<void> {
  await db.updateTable('alertChannels').set(outcome).where('id', '=', id).execute();
}

/**
 * Moves a stream of runs to its new last outcome; answers the outcome before (undefined for a
 * stream's first run). A run heard twice (recovery) changes nothing the second time.
 */
export async function advanceStream(
  db: Db,
  stream: { key: string; organizationId: string; status: string; runId: string; now: string },
): Promise<{ previous: string | undefined; repeated: boolean }> {
  return db.transaction().execute(async (trx) => {
    const before = await trx
      .selectFrom('alertStreams')
      .select(['lastStatus', 'lastRunId'])
      .where('key', '=', stream.key)
      .executeTakeFirst();
    if (before?.lastRunId === stream.runId) return { previous: undefined, repeated: true };
    await trx
      .insertInto('alertStreams')
      .values({
        key: stream.key,
        organizationId: stream.organizationId,
        lastStatus: stream.status,
        lastRunId: stream.runId,
        updatedAt: stream.now,
      })
      .onConflict((oc) =>
        oc
          .column('key')
          .doUpdateSet({ lastStatus: stream.status, lastRunId: stream.runId, updatedAt: stream.now }),
      )
      .execute();
    return { previous: before?.lastStatus, repeated: false };
  });
}
