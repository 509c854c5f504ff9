import os from 'node:os';
import type { Db } from '../../adapters/db/index.ts';
import type { AppContext } from '../../context.ts';

/**
 * The record of where each executing run's processes live (table `runProcesses`): host,
 * runner, supervisor process group and temporary folder. The supervisor ends a run's
 * processes when its runner dies; this record lets the next runner on the same host end
 * whatever survived anyway and remove the folder.
 */

export async function recordRunProcess(
  ctx: Pick<AppContext, 'db' | 'clock'>,
  runId: string,
  runnerId: string,
  workDir: string,
): Promise<void> {
  await ctx.db
    .insertInto('runProcesses')
    .values({
      runId,
      host: os.hostname(),
      runnerId,
      processGroup: null,
      workDir,
      createdAt: ctx.clock.now().toISOString(),
    })
    .onConflict((oc) => oc.column('runId').doUpdateSet({ runnerId, workDir, processGroup: null }))
    .execute();
}

export async function recordProcessGroup(db: Db, runId: string, processGroup: number): Promise<void> {
  await db.updateTable('runProcesses').set({ processGroup }).where('runId', '=', runId).execute();
}

/** The run let go of its processes and folder (they are gone). */
export async function releaseRunProcess(db: Db, runId: string): Promise<void> {
  await db.deleteFrom('runProcesses').where('runId', '=', runId).execute();
}

/** The recorded runs of this host whose runner is not the given one. */
export async function runProcessesOnHostExcept(db: Db, runnerId: string) {
  return db
    .selectFrom('runProcesses')
    .selectAll()
    .where('host', '=', os.hostname())
    .where('runnerId', '!=', runnerId)
    .execute();
}
