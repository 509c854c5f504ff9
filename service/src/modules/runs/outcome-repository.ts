import { type RunReport, type RunSource, runReport, runSource } from '@stepdeck/contract';
import { z } from 'zod';
import type { Db, Tx } from '../../adapters/db/index.ts';
import { readJson } from '../../adapters/db/index.ts';

/** What another module may know of a run: where it ran, where its code came from, its report. */
export interface RunOutcome {
  id: string;
  organizationId: string;
  projectId: string;
  branchId: string;
  branchName: string;
  triggerType: string;
  status: string;
  testRevisionId: string | null;
  createdAt: string;
  completedAt: string | null;
  source: RunSource;
  report: RunReport | null;
}

const storedMetadata = z.looseObject({ source: runSource.optional().catch(undefined) });

/** A run as the history module reads it (the run's own tables stay the runs module's). */
export async function runOutcome(db: Db | Tx, runId: string): Promise<RunOutcome | undefined> {
  const row = await db
    .selectFrom('runs')
    .select([
      'id',
      'organizationId',
      'projectId',
      'branchId',
      'branchName',
      'triggerType',
      'status',
      'testRevisionId',
      'createdAt',
      'completedAt',
      'metadata',
      'report',
    ])
    .where('id', '=', runId)
    .executeTakeFirst();
  if (!row) return undefined;
  const { metadata, report, ...rest } = row;
  const stored = readJson(storedMetadata.nullable(), metadata, null, `runs ${row.id}/metadata`);
  return {
    ...rest,
    source: stored?.source ?? {},
    report: readJson(runReport.nullable(), report, null, `runs ${row.id}/report`),
  };
}
