import { randomUUID } from 'node:crypto';
import { jsonObject } from '@stepdeck/contract';
import type { Selectable } from 'kysely';
import { z } from 'zod';
import type { Db, Tx } from '../../adapters/db/index.ts';
import { fromFlag, readJson } from '../../adapters/db/index.ts';
import type { Database } from '../../adapters/db/schema.ts';

export type ScheduleRow = Selectable<Database['schedules']>;
export type FiringRow = Selectable<Database['scheduleFirings']>;

/** Run states in which a run still occupies its schedule (a new firing is skipped). */

/** `testIds` as stored: the tests a schedule runs (or null when it runs a tag). */
export const storedTestIds = z.array(z.string()).nullable();

/** The schedule record as the API returns it. */
export function toSchedule(row: ScheduleRow) {
  return {
    id: row.id,
    organizationId: row.organizationId,
    projectId: row.projectId,
    branchId: row.branchId,
    name: row.name,
    testIds: readJson(storedTestIds, row.testIds, null, `schedules ${row.id}/testIds`),
    tagId: row.tagId,
    cron: row.cron,
    timezone: row.timezone,
    config: readJson(jsonObject.nullable(), row.config, null, `schedules ${row.id}/config`),
    environment: row.environment,
    enabled: fromFlag(row.enabled),
    scheduleType: row.scheduleType,
    nextRunAt: row.nextRunAt,
    lastRunAt: row.lastRunAt,
    lastRunId: row.lastRunId,
    lastSkippedAt: row.lastSkippedAt,
    lastSkipReason: row.lastSkipReason,
    skippedCount: row.skippedCount,
    lastError: row.lastError,
    lastErrorAt: row.lastErrorAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
export type Schedule = ReturnType<typeof toSchedule>;

export async function findSchedule(db: Db, organizationId: string, id: string) {
  return db
    .selectFrom('schedules')
    .selectAll()
    .where('id', '=', id)
    .where('organizationId', '=', organizationId)
    .executeTakeFirst();
}

export async function listSchedules(db: Db, organizationId: string, projectId?: string) {
  let query = db.selectFrom('schedules').selectAll().where('organizationId', '=', organizationId);
  if (projectId) query = query.where('projectId', '=', projectId);
  return query.orderBy('createdAt', 'asc').orderBy('id', 'asc').execute();
}

export async function dueSchedules(db: Db, nowIso: string, limit: number) {
  return db
    .selectFrom('schedules')
    .selectAll()
    .where('enabled', '=', 1)
    .where('nextRunAt', 'is not', null)
    .where('nextRunAt', '<=', nowIso)
    .orderBy('nextRunAt', 'asc')
    .limit(limit)
    .execute();
}

export async function earliestNextRun(db: Db): Promise<string | null> {
  const row = await db
    .selectFrom('schedules')
    .select((eb) => eb.fn.min('nextRunAt').as('next'))
    .where('enabled', '=', 1)
    .executeTakeFirst();
  return (row?.next as string | null | undefined) ?? null;
}

/**
 * Claims one tick: moves `nextRunAt` forward only if it still holds the tick this instance
 * saw, and records the firing, in one transaction. Of several instances (or a restart
 * racing itself) exactly one gets `true` for a given tick.
 */
export async function claimTick(
  db: Db,
  schedule: { id: string; tickAt: string },
  next: string | null,
  nowIso: string,
): Promise<string | null> {
  try {
    return await db.transaction().execute(async (trx) => {
      const result = await trx
        .updateTable('schedules')
        .set({ nextRunAt: next })
        .where('id', '=', schedule.id)
        .where('enabled', '=', 1)
        .where('nextRunAt', '=', schedule.tickAt)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) return null;
      const firingId = randomUUID();
      await trx
        .insertInto('scheduleFirings')
        .values({
          id: firingId,
          scheduleId: schedule.id,
          tickAt: schedule.tickAt,
          firedAt: nowIso,
          outcome: 'claimed',
          runId: null,
          message: null,
        })
        .execute();
      return firingId;
    });
  } catch (error) {
    // The unique (scheduleId, tickAt) backstop: another instance recorded this tick first.
    if (/unique|duplicate key/i.test(String((error as { message?: string }).message ?? ''))) return null;
    throw error;
  }
}

export async function recordStarted(
  db: Db,
  scheduleId: string,
  firingId: string | null,
  runId: string,
  nowIso: string,
) {
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('schedules')
      .set({ lastRunId: runId, lastRunAt: nowIso, lastError: null, lastErrorAt: null })
      .where('id', '=', scheduleId)
      .execute();
    if (firingId) {
      await trx
        .updateTable('scheduleFirings')
        .set({ outcome: 'started', runId })
        .where('id', '=', firingId)
        .execute();
    }
  });
}

export async function recordSkipped(
  db: Db,
  scheduleId: string,
  firingId: string,
  message: string,
  nowIso: string,
) {
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('schedules')
      .set((eb) => ({
        lastSkippedAt: nowIso,
        lastSkipReason: message.slice(0, 512),
        skippedCount: eb('skippedCount', '+', 1),
      }))
      .where('id', '=', scheduleId)
      .execute();
    await trx
      .updateTable('scheduleFirings')
      .set({ outcome: 'skipped', message })
      .where('id', '=', firingId)
      .execute();
  });
}

export async function recordFailed(
  db: Db,
  scheduleId: string,
  firingId: string,
  message: string,
  nowIso: string,
) {
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('schedules')
      .set({ lastError: message, lastErrorAt: nowIso })
      .where('id', '=', scheduleId)
      .execute();
    await trx
      .updateTable('scheduleFirings')
      .set({ outcome: 'failed', message })
      .where('id', '=', firingId)
      .execute();
  });
}

/**
 * Firings without an outcome since before `beforeIso`: `claimed` (the job was lost, or the
 * claiming instance died before sending it) or `firing` (the worker died mid-firing).
 */
export async function staleClaims(db: Db, beforeIso: string, limit: number) {
  return db
    .selectFrom('scheduleFirings')
    .innerJoin('schedules', 'schedules.id', 'scheduleFirings.scheduleId')
    .selectAll('schedules')
    .select([
      'scheduleFirings.id as firingId',
      'scheduleFirings.tickAt as firingTickAt',
      'scheduleFirings.firedAt as firingFiredAt',
      'scheduleFirings.outcome as firingOutcome',
    ])
    .where('scheduleFirings.outcome', 'in', ['claimed', 'firing'])
    .where('scheduleFirings.firedAt', '<', beforeIso)
    .where('schedules.enabled', '=', 1)
    .limit(limit)
    .execute();
}

/**
 * Takes over a stale firing: back to `claimed` with a fresh `firedAt`, only if nobody moved it
 * since it was seen; of several instances exactly one gets `true`.
 */
export async function takeOverClaim(
  db: Db,
  firing: { id: string; outcome: 'claimed' | 'firing'; firedAt: string },
  nowIso: string,
) {
  const result = await db
    .updateTable('scheduleFirings')
    .set({ outcome: 'claimed', firedAt: nowIso })
    .where('id', '=', firing.id)
    .where('outcome', '=', firing.outcome)
    .where('firedAt', '=', firing.firedAt)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Starts performing a claimed firing (`claimed` → `firing`): of several deliveries of its job
 * exactly one gets `true`; a firing already firing or with an outcome is not fired again.
 */
export async function beginFiring(db: Db, firingId: string, nowIso: string) {
  const result = await db
    .updateTable('scheduleFirings')
    .set({ outcome: 'firing', firedAt: nowIso })
    .where('id', '=', firingId)
    .where('outcome', '=', 'claimed')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function findSchedulesRow(db: Db, id: string) {
  return db.selectFrom('schedules').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Closes a firing without touching the schedule's counters (it was disabled meanwhile). */
export async function recordDropped(db: Db, firingId: string, message: string) {
  await db
    .updateTable('scheduleFirings')
    .set({ outcome: 'skipped', message })
    .where('id', '=', firingId)
    .execute();
}

export async function pruneFirings(db: Db, beforeIso: string) {
  await db.deleteFrom('scheduleFirings').where('firedAt', '<', beforeIso).execute();
}

/** Ids and names of these schedules, by name. */
export async function scheduleNames(db: Db | Tx, scheduleIds: readonly string[]) {
  const unique = [...new Set(scheduleIds)];
  if (unique.length === 0) return [];
  return db
    .selectFrom('schedules')
    .select(['id', 'name'])
    .where('id', 'in', unique)
    .orderBy('name', 'asc')
    .execute();
}

export async function insertSchedule(db: Db | Tx, row: ScheduleRow) {
  await db.insertInto('schedules').values(row).execute();
}

export async function updateSchedule(db: Db | Tx, id: string, changes: Partial<ScheduleRow>) {
  await db.updateTable('schedules').set(changes).where('id', '=', id).execute();
}

/** Deletes the organization's schedule; false when it has no such schedule. */
export async function deleteScheduleOf(db: Db | Tx, organizationId: string, id: string) {
  const result = await db
    .deleteFrom('schedules')
    .where('id', '=', id)
    .where('organizationId', '=', organizationId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** The enabled schedules of a project with what they target, by name. */
export async function enabledSchedulesOfProject(db: Db, projectId: string) {
  return db
    .selectFrom('schedules')
    .select(['id', 'name', 'testIds', 'tagId'])
    .where('projectId', '=', projectId)
    .where('enabled', '=', 1)
    .orderBy('name', 'asc')
    .execute();
}
