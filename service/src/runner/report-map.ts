import { existsSync } from 'node:fs';
import path from 'node:path';
import type {
  JSONReport,
  JSONReportSuite,
  JSONReportTest,
  JSONReportTestResult,
} from '@playwright/test/reporter';
import {
  type DataRowRef,
  dataRowRef,
  type FailedStep,
  type HealedStep,
  type LocatorSuggestions,
  type RunStepResult,
  type StepVitals,
} from '@stepdeck/contract';
import {
  DATA_ROW_ANNOTATION,
  TEST_ID_ANNOTATION,
  VISUAL_ANNOTATION,
  VITALS_ANNOTATION,
} from './compiler/index.ts';
import type { StepOutline } from './compiler/outline.ts';
import { healReport } from './heal-report.ts';
import { type AttemptFailure, describeFailure, stepResults } from './outcome.ts';
import { droppedFileSuffix } from './redact-report.ts';

/**
 * Maps Playwright's JSON report back to Stepdeck tests: one entry per test and repeat (retries
 * of one repeat are its attempts), with artifacts, step outcomes and the failure in the user's
 * words (see outcome.ts).
 */

export type ExecutedTestStatus = 'passed' | 'failed' | 'skipped' | 'timedOut' | 'flaky';

export interface ExecutedArtifact {
  /** Absolute path on disk. */
  path: string;
  /** File name to store it under (unique within the test's entry). */
  file: string;
  kind: 'trace' | 'screenshot' | 'video' | 'other';
}

/** One `assertScreenshot` of a test (the runtime's `stepdeck-visual` annotation). */
export interface VisualCheck {
  stepId: string;
  status: 'new' | 'passed' | 'changed';
  diffPixels: number;
  ratio: number;
  width: number;
  height: number;
  /** The attached screenshot and diff (absent when the step matched its baseline). */
  actual: ExecutedArtifact | null;
  diff: ExecutedArtifact | null;
}

export interface ExecutedTest {
  testId: string;
  name: string;
  status: ExecutedTestStatus;
  durationMs: number;
  /** User-facing: the failing step, its action and what was expected and received. */
  errorMessage: string | null;
  /** The failing step's path (`Checkout › Pay › assertText #out`). */
  errorLocation: string | null;
  attempts: number;
  /** Playwright project name (one per distinct config). */
  project: string;
  artifacts: ExecutedArtifact[];
  failedStep: FailedStep | null;
  expected: string | null;
  received: string | null;
  /** Playwright's own error text (ANSI stripped, run paths relative). */
  errorDetail: string | null;
  /** Failed, then passed on a retry: the failure fields describe the failed attempt. */
  flaky: boolean;
  /** The step tree's outcomes in the attempt that decided the status. */
  steps: RunStepResult[];
  /** Each `assertScreenshot` the decisive attempt reached. */
  visual?: VisualCheck[];
  /** The failed step's locator found nothing (or several): the page's closest elements. */
  locatorSuggestions?: LocatorSuggestions | null;
  /** Steps that passed only with a suggestion (`heal: retry`). */
  healed?: HealedStep[];
  /** Web Vitals the decisive attempt's `measureVitals` / `assertVitals` steps measured. */
  vitals?: StepVitals[];
  /** The data set row this result ran (a test with a data set has one result per row). */
  dataRow?: DataRowRef;
}

export interface MapContext {
  dir: string;
  testIdBySpec: Map<string, string>;
  outlines: Map<string, StepOutline[]>;
}

function collectTests(
  suite: JSONReportSuite,
  out: Array<{ file: string; title: string; test: JSONReportTest }>,
) {
  for (const spec of suite.specs) {
    for (const test of spec.tests) out.push({ file: spec.file, title: spec.title, test });
  }
  for (const child of suite.suites ?? []) collectTests(child, out);
}

function artifactKind(name: string, contentType: string): ExecutedArtifact['kind'] {
  if (name === 'trace' || contentType === 'application/zip') return 'trace';
  if (name === 'video' || contentType.startsWith('video/')) return 'video';
  if (name === 'screenshot' || contentType.startsWith('image/')) return 'screenshot';
  return 'other';
}

function artifactsOf(results: JSONReportTestResult[], occurrence: number): ExecutedArtifact[] {
  const artifacts: ExecutedArtifact[] = [];
  const used = new Set<string>();
  for (const result of results) {
    for (const attachment of result.attachments) {
      if (!attachment.path) continue;
      // A file the redaction left out (a cap, redact-stream.ts) is stored as its note instead.
      const dropped = !existsSync(attachment.path) && existsSync(`${attachment.path}${droppedFileSuffix}`);
      if (!dropped && !existsSync(attachment.path)) continue;
      const kind = artifactKind(attachment.name, attachment.contentType);
      const named =
        kind === 'screenshot' && attachment.name !== 'screenshot' && path.extname(attachment.name)
          ? attachment.name
          : path.basename(attachment.path);
      const prefix = `${occurrence > 0 ? `run${occurrence + 1}-` : ''}${result.retry > 0 ? `retry${result.retry}-` : ''}`;
      const suffix = dropped ? droppedFileSuffix : '';
      let fileName = `${prefix}${named}${suffix}`;
      for (let n = 2; used.has(fileName); n++) fileName = `${prefix}${n}-${named}${suffix}`;
      used.add(fileName);
      artifacts.push({
        path: path.resolve(`${attachment.path}${suffix}`),
        file: fileName,
        kind: dropped ? 'other' : kind,
      });
    }
  }
  return artifacts;
}

/**
 * What the runtime names a step's pictures, `<name>-actual.png` and `<name>-diff.png`
 * (compiler/runtime/stepdeck-visual.ts); a stored file may carry a retry or repeat prefix.
 */
export const visualPictureName = (stepId: string) => `visual-${stepId.replace(/[^A-Za-z0-9_-]/g, '_')}`;

/** The visual checks of one attempt, with the artifacts holding their pictures. */
function visualChecksOf(
  result: JSONReportTestResult | undefined,
  artifacts: ExecutedArtifact[],
): VisualCheck[] {
  const annotations = (result as { annotations?: Array<{ type: string; description?: string }> } | undefined)
    ?.annotations;
  const checks: VisualCheck[] = [];
  for (const annotation of annotations ?? []) {
    if (annotation.type !== VISUAL_ANNOTATION || !annotation.description) continue;
    let parsed: Omit<VisualCheck, 'actual' | 'diff'>;
    try {
      parsed = JSON.parse(annotation.description) as Omit<VisualCheck, 'actual' | 'diff'>;
    } catch {
      continue;
    }
    if (typeof parsed.stepId !== 'string') continue;
    const base = visualPictureName(parsed.stepId);
    // The attempt's own file: retries and repeats prefix theirs (`retry1-`, `run2-`).
    const find = (suffix: string) =>
      artifacts.findLast((artifact) => artifact.file.endsWith(`${base}-${suffix}.png`)) ?? null;
    checks.push({ ...parsed, actual: find('actual'), diff: find('diff') });
  }
  return checks;
}

/** The row a data-driven test ran, from the annotation its spec gives each row's test. */
function dataRowOf(test: JSONReportTest): DataRowRef | undefined {
  const description = test.annotations.find(
    (annotation) => annotation.type === DATA_ROW_ANNOTATION,
  )?.description;
  if (!description) return undefined;
  try {
    const parsed = dataRowRef.safeParse(JSON.parse(description));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** The vitals one attempt measured (the runtime's `stepdeck-vitals` annotations), in step order. */
function vitalsOf(result: JSONReportTestResult | undefined): StepVitals[] {
  const annotations = (result as { annotations?: Array<{ type: string; description?: string }> } | undefined)
    ?.annotations;
  const out: StepVitals[] = [];
  for (const annotation of annotations ?? []) {
    if (annotation.type !== VITALS_ANNOTATION || !annotation.description) continue;
    try {
      const parsed = JSON.parse(annotation.description) as StepVitals;
      if (typeof parsed.stepId === 'string') out.push(parsed);
    } catch {
      // Not ours to judge: an annotation that does not parse is left out.
    }
  }
  return out;
}

function statusOf(test: JSONReportTest, last: JSONReportTestResult | undefined): ExecutedTestStatus {
  if (test.status === 'skipped') return 'skipped';
  if (test.status === 'expected') return 'passed';
  if (test.status === 'flaky') return 'flaky';
  return last?.status === 'timedOut' ? 'timedOut' : 'failed';
}

const failedAttempt = (result: JSONReportTestResult) =>
  result.status === 'failed' || result.status === 'timedOut' || result.status === 'interrupted';

export function mapReport(report: JSONReport, context: MapContext): ExecutedTest[] {
  const entries: Array<{ file: string; title: string; test: JSONReportTest }> = [];
  for (const suite of report.suites) collectTests(suite, entries);
  const seen = new Map<string, number>();
  return entries.map(({ file, title, test }) => {
    const annotated = test.annotations.find(
      (annotation) => annotation.type === TEST_ID_ANNOTATION,
    )?.description;
    const testId = annotated ?? context.testIdBySpec.get(path.basename(file)) ?? file;
    const occurrence = seen.get(testId) ?? 0;
    seen.set(testId, occurrence + 1);
    const results = test.results;
    const dataRow = dataRowOf(test);
    const last = results[results.length - 1];
    const status = statusOf(test, last);
    const outlines = context.outlines.get(testId) ?? [];
    // The attempt whose failure is reported: the last one of a failed test, the first failed
    // one of a flaky test (which then passed on a retry).
    const failing =
      status === 'failed' || status === 'timedOut'
        ? last
        : status === 'flaky'
          ? results.find(failedAttempt)
          : undefined;
    let failure: AttemptFailure | null = null;
    if (failing)
      failure = describeFailure(failing, stepResults(outlines, failing, context.dir).failed, context.dir);
    const steps = last ? stepResults(outlines, last, context.dir).steps : [];
    const heal = healReport(last, steps, failing === last ? (failure?.failedStep ?? null) : null);
    // The failing locator and the closest element now, right under the step's headline.
    if (failure && heal.messageLine) {
      const [headline, ...rest] = failure.message.split('\n');
      failure.message = [headline, heal.messageLine, ...rest].join('\n');
    }
    // A data set row's failure says which row, right under the headline too.
    if (failure && dataRow) {
      const [headline, ...rest] = failure.message.split('\n');
      failure.message = [headline, `Data set row ${dataRow.index + 1}: ${dataRow.name}`, ...rest].join('\n');
    }
    const artifacts = artifactsOf(results, occurrence);
    const lastAttempt = new Set(
      (last?.attachments ?? []).flatMap((attachment) =>
        attachment.path ? [path.resolve(attachment.path)] : [],
      ),
    );
    return {
      testId,
      name: title,
      status,
      durationMs: results.reduce((sum, result) => sum + result.duration, 0),
      errorMessage: failure?.message ?? null,
      errorLocation: failure?.location ?? null,
      attempts: results.length,
      project: test.projectName,
      artifacts,
      failedStep: failure?.failedStep ?? null,
      expected: failure?.expected ?? null,
      received: failure?.received ?? null,
      errorDetail: failure?.detail ?? null,
      flaky: status === 'flaky',
      steps,
      locatorSuggestions: heal.locatorSuggestions,
      healed: heal.healed,
      vitals: vitalsOf(last),
      visual: visualChecksOf(
        last,
        artifacts.filter((artifact) => lastAttempt.has(artifact.path)),
      ),
      ...(dataRow ? { dataRow } : {}),
    };
  });
}
