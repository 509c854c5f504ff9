import { describe, expect, it } from 'vitest';
import { junitXml } from '../src/report/junit.ts';
import { resultsMarkdown } from '../src/report/markdown.ts';
import { mergeRuns } from '../src/results.ts';
import { base, projectId, runDetail, uuid } from './fixtures.ts';

/** A data-driven test reports one result per row under one test id: the summary lists each row as a test. */
describe('a data-driven test in the action and CLI reports', () => {
  const testId = uuid(77);
  const row = (index: number, name: string, status: string) => ({
    testId,
    name: `Greet [${name}]`,
    status,
    dataRow: { index, name },
    ...(status === 'failed'
      ? {
          errorMessage: `Step "check" (assertText #out) failed\nData set row ${index + 1}: ${name}\nExpected: "Hello Nobody"`,
          errorLocation: 'check',
        }
      : {}),
  });
  const results = mergeRuns(
    [
      runDetail(uuid(10), 'failed', [
        row(0, 'Ada', 'passed'),
        row(1, 'Bob', 'passed'),
        row(2, 'Cy', 'failed'),
      ]).data,
    ],
    { baseUrl: base, projectId, timedOut: false },
  );

  it('counts and lists every row as a test', () => {
    expect(results.stats).toMatchObject({ total: 3, passed: 2, failed: 1 });
    expect(results.tests.map((test) => [test.name, test.status])).toEqual([
      ['Greet [Cy]', 'failed'],
      ['Greet [Ada]', 'passed'],
      ['Greet [Bob]', 'passed'],
    ]);
  });

  it('names the failing row in the job summary and each row in JUnit', () => {
    const markdown = resultsMarkdown(results);
    expect(markdown).toContain('Greet [Cy]');
    expect(markdown).toContain('Data set row 3: Cy');
    const xml = junitXml(results);
    for (const name of ['Greet [Ada]', 'Greet [Bob]', 'Greet [Cy]']) expect(xml).toContain(`name="${name}"`);
    expect(xml).toContain('tests="3"');
  });
});
