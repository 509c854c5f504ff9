import fsp from 'node:fs/promises';
import type { AppContext } from '../../context.ts';
import { endSurvivors, processAlive } from '../../runner/supervisor.ts';
import { releaseRunProcess, runProcessesOnHostExcept } from './processes-repository.ts';

/**
 * Cleaning up after runners that died on this host (their records: `processes-repository.ts`).
 */

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
  const rows = await runProcessesOnHostExcept(ctx.db, currentRunnerId);
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
