import { isFailedTest, type Results } from '../results.ts';
import { cut, expectation, failingStep, failureTitle, fullMessage, reason } from './failure.ts';

export interface Annotation {
  message: string;
  title: string;
  file?: string;
  startLine?: number;
  startColumn?: number;
}

export const maxAnnotations = 50;

/**
 * One error annotation per failed test (at most 50): title = test › failing step, message =
 * the expectation (expected vs received) then the full message. Placed at the error location
 * only when an older service reports one as file:line[:col].
 */
export function annotationsFor(results: Results): Annotation[] {
  return results.tests
    .filter(isFailedTest)
    .slice(0, maxAnnotations)
    .map((test) => {
      const step = failingStep(test);
      const lines = expectation(test) ? [reason(test, 400), fullMessage(test)] : [fullMessage(test)];
      const annotation: Annotation = {
        title: step ? failureTitle(test) : `Stepdeck: ${test.name} ${test.status}`,
        message: cut(
          [...lines, !step && test.errorLocation ? `at ${test.errorLocation}` : '']
            .filter(Boolean)
            .join('\n'),
          4000,
        ),
      };
      const match = step ? null : test.errorLocation?.match(/^(.+?):(\d+)(?::(\d+))?$/);
      if (match?.[1] && !/\s/.test(match[1])) {
        annotation.file = match[1];
        annotation.startLine = Number(match[2]);
        if (match[3]) annotation.startColumn = Number(match[3]);
      }
      return annotation;
    });
}
