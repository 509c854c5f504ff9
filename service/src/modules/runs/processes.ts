import fsp from 'node:fs/promises';
import os from 'node:os';
import type { Db } from '../../adapters/db/index.ts';
import type { AppContext } from '../../context.ts';
import { endSurvivors, processAlive } from '../../runner/supervisor.ts';

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

/** The pid in a runner id (`host:pid:nonce`). */
const pidOf = (runnerId: string) => Number(runnerId.split(':').at(-2));

/**
 * Ends the processes and removes the folders of runs whose runner on this host is dead:
 * its pid is gone, or it is this very process (a previous process that had the same pid).
 * Runs on other hosts are left to their own hosts. Returns the runs cleaned.
 */
export async function sweepDeadRunProcesses(
  ctx: Pick<AppContext, 'db' | 'log'>,
  currentRunnerId: string,
): Promise<number> {
  const rows = await ctx.db
    .selectFrom('runProcesses')
    .selectAll()
    .where('host', '=', os.hostname())
    .where('runnerId', '!=', currentRunnerId)
    .execute();
  let cleaned = 0;
  for (const row of rows) {
    const pid = pidOf(row.runnerId);
    if (Number.isInteger(pid) && pid !== process.pid && processAlive(pid)) continue;
    const ended = endSurvivors(row.workDir, row.processGroup);
    await fsp.rm(row.workDir, { recursive: true, force: true });
    await releaseRunProcess(ctx.db, row.runId);
    ctx.log.warn(
      { runId: row.runId, processesEnded: ended },
      'cleaned up after a run whose runner died: survivors ended, temporary folder removed',
    );
    cleaned += 1;
  }
  return cleaned;
}
