import { isFailedTest, type TestOutcome } from '../results.ts';

/**
 * A failed test in the user's words, for every surface (summary, comment, annotations, JUnit,
 * CLI): which step failed and why. Uses the service's step-level fields when it sends them and
 * degrades to errorMessage/errorLocation when it does not (older services).
 */

/** Cuts `text` to `max` characters, saying how much was cut. */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const marker = `… [cut: ${text.length - max} more characters]`;
  return `${text.slice(0, Math.max(0, max - marker.length))}${marker}`;
}

/** One line: whitespace runs (newlines included) become one space. */
export const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

/** A location that names a generated spec file, which the user never saw. */
const generatedFile = /\.(spec|test)\.[cm]?[jt]s(:\d+)*$/;

/** `Checkout › Pay` (`assertText #out`), or the service's errorLocation when it is a step path. */
export function failingStep(test: TestOutcome): { path: string; action: string | null } | null {
  if (test.failedStep) {
    const path = test.failedStep.path.length > 0 ? test.failedStep.path : [test.failedStep.name];
    return { path: path.join(' › '), action: test.failedStep.action };
  }
  if (test.errorLocation && !generatedFile.test(test.errorLocation))
    return { path: test.errorLocation, action: null };
  return null;
}

export const failingStepText = (test: TestOutcome) => {
  const step = failingStep(test);
  return step ? `${step.path}${step.action ? ` (${step.action})` : ''}` : '';
};

/**
 * Expected and received values: the service's fields, else the `Expected…:`/`Received…:` lines
 * of a Playwright assertion message.
 */
export function expectation(test: TestOutcome): { expected: string; received: string | null } | null {
  if (test.expected != null) return { expected: test.expected, received: test.received ?? null };
  const message = test.errorMessage ?? '';
  const expected = message.match(/^\s*Expected(?: [\w ]+)?: (.+)$/m)?.[1];
  if (!expected) return null;
  const received = message.match(/^\s*Received(?: [\w ]+)?: (.+)$/m)?.[1];
  return { expected: expected.trim(), received: received?.trim() ?? null };
}

/** `no element for getByRole('button', { name: 'Save' }); closest now: getByRole(…)`. */
export function locatorHintText(hint: NonNullable<TestOutcome['locatorHint']>): string {
  const head =
    hint.problem === 'many' ? `several elements match ${hint.from}` : `no element for ${hint.from}`;
  return hint.closest ? `${head}; closest now: ${hint.closest}` : `${head}; nothing similar on the page now`;
}

/** `passed (healed: step 2 used getByRole('button', { name: 'Save changes' }))`; null when not healed. */
export function healedText(test: TestOutcome): string | null {
  if (!test.healed?.length || isFailedTest(test)) return null;
  const used = test.healed.map((step) => `step ${step.step} used ${step.locator}`).join(', ');
  return `${test.status} (healed: ${used})`;
}

/**
 * The one-line reason: the failing locator and the closest element now, else
 * `expected "Bye Ada", received "Hello Ada"`, else the message's first line.
 */
export function reason(test: TestOutcome, max = 160): string {
  if (test.locatorHint) return cut(oneLine(locatorHintText(test.locatorHint)), max);
  const values = expectation(test);
  if (values)
    return cut(
      oneLine(
        `expected ${cut(values.expected, 70)}${values.received !== null ? `, received ${cut(values.received, 70)}` : ''}`,
      ),
      max,
    );
  const first = (test.errorMessage ?? '')
    .split('\n')
    .map((line) => line.trim())
    .find(Boolean);
  if (first) return cut(oneLine(first.replace(/^Error:\s*/, '')), max);
  return isFlaky(test) ? 'passed on a retry' : test.status;
}

const isFlaky = (test: TestOutcome) => test.flaky || test.status === 'flaky';

/** `test › step path`: the title of a failure everywhere. */
export function failureTitle(test: TestOutcome): string {
  const step = failingStep(test);
  return step ? `${test.name} › ${step.path}` : test.name;
}

/**
 * The full user-facing text of a failure: the service's message, preceded by the failing step
 * and the expectation when the message does not already say them.
 */
export function fullMessage(test: TestOutcome): string {
  const message = test.errorMessage ?? '';
  const lines: string[] = [];
  const step = failingStep(test);
  if (step && !message.includes(step.path))
    lines.push(`Step: ${step.path}${step.action ? ` (${step.action})` : ''}`);
  if (test.expected != null && !/^\s*Expected\b/m.test(message)) {
    lines.push(`Expected: ${test.expected}`);
    if (test.received != null) lines.push(`Received: ${test.received}`);
  }
  if (message) lines.push(...(lines.length > 0 ? [''] : []), message);
  if (lines.length === 0) lines.push(`Test ${test.status}`);
  return lines.join('\n');
}
