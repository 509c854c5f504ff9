import type { Uploaded } from './artifacts.ts';
import type { Results } from './results.ts';
import { newFailures } from './triage.ts';
import { visualChangesOf } from './visual.ts';

export interface OutputSources {
  runIds: readonly string[];
  runUrls: readonly string[];
  results?: Results | undefined;
  reportPath?: string | undefined;
  junitPath?: string | undefined;
  artifactsPath?: string | undefined;
  uploaded?: Uploaded | undefined;
}

/** Every output of action.yml as strings (also the CLI's --json, parsed back). */
export function outputsFor(sources: OutputSources): Record<string, string> {
  const { results } = sources;
  const outputs: Record<string, string> = {
    'run-id': sources.runIds[0] ?? '',
    'run-ids': sources.runIds.join(','),
    'run-url': sources.runUrls[0] ?? '',
    status: results?.status ?? 'triggered',
  };
  if (results) {
    Object.assign(outputs, {
      passed: String(results.stats.passed),
      failed: String(results.stats.failed),
      skipped: String(results.stats.skipped),
      flaky: String(results.stats.flaky),
      total: String(results.stats.total),
      'carried-over': String(results.carriedOver ?? 0),
      'duration-ms': String(results.durationMs),
      'new-failures': String(newFailures(results).length),
      'visual-changes': String(visualChangesOf(results).length),
      results: JSON.stringify({
        status: results.status,
        stats: results.stats,
        durationMs: results.durationMs,
        runs: results.runs,
        // errorDetail (Playwright's raw text) stays in the JUnit file: outputs are size-limited.
        tests: results.tests.map(({ errorDetail: _detail, ...test }) => test),
      }),
    });
  }
  if (sources.reportPath) outputs['report-path'] = sources.reportPath;
  if (sources.junitPath) outputs['junit-path'] = sources.junitPath;
  if (sources.artifactsPath) outputs['artifacts-path'] = sources.artifactsPath;
  if (sources.uploaded?.id !== undefined) outputs['artifact-id'] = String(sources.uploaded.id);
  return outputs;
}
