/**
 * The one seam to the runs module: `startRun` applies the target expansion, the 100-test
 * cap and the 409 rule (schedule triggers skip the API cooldowns) and stores
 * `scheduleId`/`scheduleType`/`scheduleName` on the run.
 */
import type { AppContext } from '../../context.ts';
import { presetOfSchedule } from '../presets/public.ts';
import { startRun } from '../runs/public.ts';
import type { StartScheduledRun } from './service.ts';

export function runStarter(ctx: AppContext): StartScheduledRun {
  return async (request) => {
    // The schedule's preset, read as it fires: an edited preset applies to the next firing. The
    // trigger layers it under the schedule's own config, and the schedule's own environment
    // over the preset's.
    const preset = await presetOfSchedule(ctx.db, request.schedule.id);
    const started = await startRun(ctx, {
      organizationId: request.organizationId,
      projectId: request.projectId,
      branchId: request.branchId,
      ...(request.testIds ? { testIds: request.testIds } : {}),
      ...(request.tagId ? { tagId: request.tagId } : {}),
      ...(request.config ? { config: request.config } : {}),
      ...(preset ? { preset } : {}),
      ...(request.environment ? { environment: request.environment } : {}),
      ...(request.audit ? { audit: request.audit } : {}),
      trigger: {
        type: 'schedule',
        scheduleId: request.schedule.id,
        scheduleName: request.schedule.name,
        scheduleType: request.schedule.type,
      },
      mode: 'bulk',
    });
    return {
      runId: started.runId,
      status: started.status,
      totalTests: started.totalTests,
      message: started.message,
    };
  };
}
