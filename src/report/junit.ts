import { isFailedTest, isFlakyTest, type Results } from '../results.ts';
import { cut, failureTitle, fullMessage, reason } from './failure.ts';

const xml = (value: string) =>
  value
    .split('')
    .filter((char) => char >= ' ' || char === '\n' || char === '\r' || char === '\t')
    .join('')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');

/** JUnit XML of the results, one testsuite per run, for test-report actions. */
export function junitXml(results: Results): string {
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const suites = results.runs.map((run) => {
    const tests = results.tests.filter((test) => test.runId === run.runId);
    const failures = tests.filter(isFailedTest).length;
    const skipped = tests.filter((test) => test.status === 'skipped').length;
    const cases = tests.map((test) => {
      const open = `    <testcase classname="stepdeck" name="${xml(test.name)}" time="${seconds(test.durationMs)}"`;
      if (test.status === 'skipped') return `${open}>\n      <skipped/>\n    </testcase>`;
      if (isFlakyTest(test))
        return `${open}>\n      <system-out>${xml(`flaky: passed on a retry. ${reason(test)}`)}</system-out>\n    </testcase>`;
      if (!isFailedTest(test)) return `${open}/>`;
      // The attribute is the short reason (one line, what CI report viewers list); the body
      // holds the full user-facing message, then Playwright's own text when the service sent it.
      const message = `${failureTitle(test)}: ${reason(test)}`;
      const body = [
        fullMessage(test),
        test.errorDetail ? `\n--- Playwright output ---\n${cut(test.errorDetail, 20_000)}` : '',
      ]
        .filter(Boolean)
        .join('\n');
      return `${open}>\n      <failure message="${xml(message)}" type="${xml(test.status)}">${xml(body)}</failure>\n    </testcase>`;
    });
    const time = seconds(tests.reduce((sum, test) => sum + test.durationMs, 0));
    return [
      `  <testsuite name="stepdeck run ${xml(run.runId)}" tests="${tests.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${time}">`,
      ...cases,
      '  </testsuite>',
    ].join('\n');
  });
  const failures = results.tests.filter(isFailedTest).length;
  const skipped = results.tests.filter((test) => test.status === 'skipped').length;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="stepdeck" tests="${results.tests.length}" failures="${failures}" skipped="${skipped}" time="${seconds(results.durationMs)}">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}
