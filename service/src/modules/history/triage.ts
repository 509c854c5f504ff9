import type { RunTriage } from '@stepdeck/contract';
import type { AppContext } from '../../context.ts';
import { HistoryService } from './service.ts';

/** Each failure of a run classed as `new`, `known`, `flaky` or `quarantined` (HistoryService.triage). */
export function triageOfRun(
  ctx: AppContext,
  scope: { organizationId: string; projectId: string },
  runId: string,
): Promise<RunTriage> {
  return new HistoryService({ ctx }).triage(scope, runId);
}
