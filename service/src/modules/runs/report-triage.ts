import type { RunReport, TriageClass } from '@stepdeck/contract';
import type { AppContext } from '../../context.ts';
import type { RunRow } from './repository.ts';

const notFailures = new Set(['passed', 'skipped']);

/**
 * The report with each failed test's triage class (new, known, flaky, quarantined) added when
 * the run is read. Classes move as other runs land and quarantines change, so they are not
 * stored with the report; the history module computes them behind `ctx.runs.failureTriage`
 * (runs cannot import history, which reads runs). Without the module, or when the triage
 * cannot be read, the report goes out as stored: reading a run never fails on it.
 */
export async function withFailureTriage(
  ctx: AppContext,
  run: Pick<RunRow, 'id' | 'organizationId' | 'projectId'>,
  report: RunReport | null,
): Promise<RunReport | null> {
  const triage = ctx.runs.failureTriage;
  const tests = report?.runTypeInfo.testResults ?? [];
  if (!report || !triage || !tests.some((test) => !notFailures.has(test.status))) return report;
  let classes: ReadonlyMap<string, TriageClass>;
  try {
    classes = await triage.classesOf(
      { organizationId: run.organizationId, projectId: run.projectId },
      run.id,
    );
  } catch (error) {
    ctx.log.warn({ err: error, runId: run.id }, 'run report goes without triage: it could not be read');
    return report;
  }
  const testResults = tests.map((test) => {
    const triage = notFailures.has(test.status) ? undefined : classes.get(test.testId);
    return triage ? { ...test, triage } : test;
  });
  return { ...report, runTypeInfo: { ...report.runTypeInfo, testResults } };
}
