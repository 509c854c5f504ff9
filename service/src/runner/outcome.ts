import os from 'node:os';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import type { JSONReportTestResult, JSONReportTestStep } from '@playwright/test/reporter';
import type { FailedStep, RunStepResult } from '@stepdeck/contract';
import { EXPECTATION_ANNOTATION } from './compiler/index.ts';
import type { StepOutline } from './compiler/outline.ts';

/**
 * Turns one Playwright attempt (a JSON report result) into what the user wrote: the outcome of
 * every step of their tree and the failure in their words (the step, its action, what was
 * expected and received), with no generated code, no stack and no server path in it.
 */

export interface AttemptFailure {
  /** User-facing: the step, its action, the expectation or the error, a few lines at most. */
  message: string;
  /** The failing step's path (`Checkout › Pay › assertText #out`), null when no step failed. */
  location: string | null;
  failedStep: FailedStep | null;
  expected: string | null;
  received: string | null;
  /** Playwright's own text, ANSI stripped, run paths relative; redacted by the caller. */
  detail: string;
}

const NOT_RUN_SUFFIX = '(not run: an earlier step failed)';
const SKIPPED_SUFFIX = /\(not run: vars\.[^)]*\)$/;
const MAX_MESSAGE_CHARS = 4_000;
const MAX_DETAIL_CHARS = 8_000;
const MAX_STEP_ERROR_CHARS = 500;
const CALL_LOG_LINES = 2;

/** Paths inside the run's directory become project-relative (`tests/x.spec.ts`). */
export function relativeToRun(text: string, dir: string): string {
  return text.replaceAll(`${dir}${path.sep}`, '').replaceAll(dir, '.');
}

const TEMP_PATH = new RegExp(`${os.tmpdir().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/[^\\s'"\`),]*`, 'g');

/** For user-facing text: no server path at all, a temp path keeps only its file name. */
export function shortenPaths(text: string, dir: string): string {
  return relativeToRun(text, dir).replace(TEMP_PATH, (match) => path.basename(match));
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * The lines of a Playwright error a user needs: the headline without its `Error:` prefix, the
 * Locator/Expected/Received lines, and (when there is no expectation) the first call-log
 * entries. Dropped: matcher hints (`expect(received).toBe(expected)`), source excerpts, stacks.
 */
export function essentialLines(message: string): string[] {
  const lines: string[] = [];
  const callLog: string[] = [];
  let inCallLog = false;
  for (const raw of stripVTControlCharacters(message).split('\n')) {
    const line = raw.trimEnd();
    if (line.trim() === '') continue;
    if (/^\s+at\s/.test(line)) continue;
    if (/^\s*>?\s*\d+\s+\|/.test(line) || /^\s+\|/.test(line)) continue;
    if (line.trim() === 'Call log:') {
      inCallLog = true;
      continue;
    }
    if (inCallLog) {
      callLog.push(line.trim().replace(/^-\s+/, ''));
      continue;
    }
    if (/^expect\(/.test(line.trim())) {
      // "expect(locator).toContainText(expected) failed": the step's action says it better.
      continue;
    }
    const kept = lines.length === 0 ? line.replace(/^[A-Za-z]*Error:\s*/, '') : line.trim();
    // A custom assertion message can come twice (`expect.poll(…, { message }).toBeTruthy()`).
    if (kept !== lines.at(-1)) lines.push(kept);
  }
  const hasExpectation = lines.some((line) => /^(Expected|Received)\b/.test(line));
  if (!hasExpectation) lines.push(...callLog.slice(0, CALL_LOG_LINES));
  return lines.filter((line) => line !== '');
}

/** `Expected substring: "x"` → `"x"` (the first such line). */
function labelled(lines: string[], label: 'Expected' | 'Received'): string | null {
  const line = lines.find((candidate) => new RegExp(`^${label}\\b[^:]*:`).test(candidate));
  return line ? line.slice(line.indexOf(':') + 1).trim() : null;
}

function expectation(
  result: JSONReportTestResult,
): { expected: string | null; received: string | null } | null {
  const annotations = (result as { annotations?: Array<{ type: string; description?: string }> }).annotations;
  const note = annotations?.find((annotation) => annotation.type === EXPECTATION_ANNOTATION)?.description;
  if (!note) return null;
  try {
    const parsed = JSON.parse(note) as { expected?: unknown; received?: unknown };
    const text = (value: unknown) => (typeof value === 'string' ? value : null);
    return { expected: text(parsed.expected), received: text(parsed.received) };
  } catch {
    return null;
  }
}

interface Walk {
  out: RunStepResult[];
  firstFailed: RunStepResult | null;
  /** The first step Playwright never reported: the one running when the test was stopped. */
  firstAbsent: RunStepResult | null;
  testError: string | null;
}

/** What both error shapes of the JSON report share. */
type ReportedError = { message?: string | undefined; value?: string | undefined; stack?: string | undefined };

function shortError(error: ReportedError | undefined, dir: string): string | null {
  if (!error?.message) return null;
  return clip(shortenPaths(essentialLines(error.message).join('\n'), dir), MAX_STEP_ERROR_CHARS);
}

function walkSteps(
  outlines: StepOutline[],
  reported: JSONReportTestStep[],
  parentPath: string[],
  depth: number,
  inherited: 'skipped' | 'notRun' | null,
  walk: Walk,
  dir: string,
): void {
  let cursor = 0;
  for (const outline of outlines) {
    // The runtime makes one test.step per node, in order: the next reported step is this one.
    let match: JSONReportTestStep | undefined;
    if (inherited === null) {
      const fits = (step: JSONReportTestStep) =>
        step.title === outline.title || step.title.startsWith(`${outline.title} (not run:`);
      const index = reported.findIndex((step, at) => at >= cursor && fits(step));
      if (index >= 0) {
        match = reported[index];
        cursor = index + 1;
      }
    }
    let status: RunStepResult['status'];
    let error: string | null = null;
    if (inherited) status = inherited;
    else if (!match) status = 'notRun';
    else if (match.title.endsWith(NOT_RUN_SUFFIX)) status = 'notRun';
    else if (SKIPPED_SUFFIX.test(match.title) || outline.condition === 'skip') status = 'skipped';
    else if (match.error) status = 'failed';
    else if (match.duration < 0)
      status = 'failed'; // still running when the test timed out
    else status = 'passed';
    const stepPath = [...parentPath, outline.name];
    const result: RunStepResult = {
      stepId: outline.stepId,
      name: outline.name,
      action: outline.action,
      path: stepPath,
      depth,
      status,
      duration: match && match.duration > 0 ? Math.round(match.duration) : 0,
      error: null,
    };
    walk.out.push(result);
    if (!match && inherited === null) walk.firstAbsent ??= result;
    const childInherited = status === 'skipped' || status === 'notRun' ? status : null;
    const before = walk.out.length;
    walkSteps(outline.children, match?.steps ?? [], stepPath, depth + 1, childInherited, walk, dir);
    const childFailed = walk.out.slice(before).some((child) => child.status === 'failed');
    // A group fails through its child; the error belongs to the step that raised it.
    if (status === 'failed' && !childFailed) {
      error = shortError(match?.error, dir) ?? walk.testError;
      result.error = error;
      walk.firstFailed ??= result;
    }
  }
}

/** Every step of the test with its outcome in this attempt, in document order. */
export function stepResults(
  outlines: StepOutline[],
  result: JSONReportTestResult,
  dir: string,
): { steps: RunStepResult[]; failed: RunStepResult | null } {
  const testError = result.errors[0] ?? result.error;
  const walk: Walk = { out: [], firstFailed: null, firstAbsent: null, testError: shortError(testError, dir) };
  walkSteps(outlines, result.steps ?? [], [], 0, null, walk, dir);
  // A test stopped (timeout) in a step that had not been reported yet: that step failed.
  const stopped = result.status !== 'passed' && result.status !== 'skipped';
  if (!walk.firstFailed && stopped && walk.firstAbsent) {
    walk.firstAbsent.status = 'failed';
    walk.firstAbsent.error = walk.testError;
    walk.firstFailed = walk.firstAbsent;
  }
  return { steps: walk.out, failed: walk.firstFailed };
}

/** The failure of one failed attempt, in the user's words. */
export function describeFailure(
  result: JSONReportTestResult,
  failed: RunStepResult | null,
  dir: string,
): AttemptFailure {
  const error: ReportedError | undefined = result.errors[0] ?? result.error;
  const raw = error?.message ?? error?.value ?? `test ${result.status}`;
  const lines = essentialLines(raw).map((line) => shortenPaths(line, dir));
  const noted = expectation(result);
  const expected = noted?.expected ?? labelled(lines, 'Expected');
  const received = noted?.received ?? labelled(lines, 'Received');
  const location = failed ? failed.path.join(' › ') : null;
  const headline = failed
    ? `Step "${location}" (${failed.action}) failed`
    : result.status === 'timedOut'
      ? 'The test timed out'
      : 'The test failed';
  const message = clip([headline, ...lines].join('\n'), MAX_MESSAGE_CHARS);
  // Playwright's whole text (source excerpt and stack included) for whoever wants it.
  const detail = clip(relativeToRun(stripVTControlCharacters(raw), dir), MAX_DETAIL_CHARS);
  return {
    message,
    location,
    failedStep: failed
      ? { stepId: failed.stepId, name: failed.name, action: failed.action, path: failed.path }
      : null,
    expected,
    received,
    detail,
  };
}
