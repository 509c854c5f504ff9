/**
 * Secret values kept out of what a run reports: its log lines, its tests' errors and step
 * names (the output files are redacted by a child process, redact-run.ts).
 */
import { createRedactor } from './redact.ts';
import type { ExecutedTest } from './report-map.ts';

/** The values the executor hides: project secrets and the Stepdeck API key it was given. */
export function secretValues(env: Record<string, string>): string[] {
  return Object.entries(env)
    .filter(([key]) => key.startsWith('STEPDECK_SECRET_') || key === 'STEPDECK_API_KEY')
    .map(([, value]) => value);
}

export function redactor(env: Record<string, string>): (text: string) => string {
  const redactor = createRedactor(secretValues(env));
  return (text) => redactor.text(text);
}

function redactHealed<T extends { from: string; to: string; locator: string }>(
  healed: T,
  redact: (text: string) => string,
): T {
  return { ...healed, from: redact(healed.from), to: redact(healed.to), locator: redact(healed.locator) };
}

/** Every text of a test result loses the secret values (the step tree's names and errors too). */
export function redactTest(test: ExecutedTest, redact: (text: string) => string): ExecutedTest {
  const maybe = (text: string | null) => (text === null ? null : redact(text));
  return {
    ...test,
    errorMessage: maybe(test.errorMessage),
    errorLocation: maybe(test.errorLocation),
    errorDetail: maybe(test.errorDetail),
    expected: maybe(test.expected),
    received: maybe(test.received),
    failedStep: test.failedStep && {
      ...test.failedStep,
      name: redact(test.failedStep.name),
      action: maybe(test.failedStep.action),
      path: test.failedStep.path.map(redact),
    },
    steps: test.steps.map((step) => ({
      ...step,
      name: redact(step.name),
      action: maybe(step.action),
      path: step.path.map(redact),
      error: maybe(step.error),
      ...(step.healed ? { healed: redactHealed(step.healed, redact) } : {}),
    })),
    // Page text can hold what a test typed: suggestions go through the redactor too.
    ...(test.locatorSuggestions
      ? {
          locatorSuggestions: {
            ...test.locatorSuggestions,
            from: redact(test.locatorSuggestions.from),
            fromLocator: redact(test.locatorSuggestions.fromLocator),
            suggestions: test.locatorSuggestions.suggestions.map((suggestion) => ({
              ...suggestion,
              selector: redact(suggestion.selector),
              locator: redact(suggestion.locator),
            })),
          },
        }
      : {}),
    ...(test.healed
      ? { healed: test.healed.map((step) => ({ ...step, ...redactHealed(step, redact) })) }
      : {}),
    // A measured page's URL and a step's label can carry a templated secret.
    ...(test.vitals
      ? {
          vitals: test.vitals.map((vitals) => ({
            ...vitals,
            url: redact(vitals.url),
            label: vitals.label === null ? null : redact(vitals.label),
          })),
        }
      : {}),
  };
}
