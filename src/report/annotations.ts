import { isFailedTest, type Results } from '../results.ts';

export interface Annotation {
  message: string;
  title: string;
  file?: string;
  startLine?: number;
  startColumn?: number;
}

export const maxAnnotations = 50;

/** One error annotation per failed test (at most 50), placed at its error location when it is file:line[:col]. */
export function annotationsFor(results: Results): Annotation[] {
  return results.tests
    .filter(isFailedTest)
    .slice(0, maxAnnotations)
    .map((test) => {
      const annotation: Annotation = {
        title: `Stepdeck: ${test.name} ${test.status}`,
        message: [
          test.errorMessage ?? `Test ${test.status}`,
          test.errorLocation && `at ${test.errorLocation}`,
        ]
          .filter(Boolean)
          .join('\n'),
      };
      const match = test.errorLocation?.match(/^(.+?):(\d+)(?::(\d+))?$/);
      if (match?.[1] && !/\s/.test(match[1])) {
        annotation.file = match[1];
        annotation.startLine = Number(match[2]);
        if (match[3]) annotation.startColumn = Number(match[3]);
      }
      return annotation;
    });
}
