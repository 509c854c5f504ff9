import type { RunTestResult } from '@stepdeck/contract';
import { describe, expect, it } from 'vitest';
import { summaryText } from '../src/cli-run.ts';
import { annotationsFor } from '../src/report/annotations.ts';
import { reason } from '../src/report/failure.ts';
import { resultsMarkdown } from '../src/report/markdown.ts';
import { mergeRuns } from '../src/results.ts';
import { base, projectId, runDetail, uuid } from './fixtures.ts';

/**
 * Locator suggestions and healing in the action's and the CLI's words: a failure names the
 * failing locator and the closest element now; a healed test is never a plain "passed".
 */

const saveChanges = "getByRole('button', { name: 'Save changes' })";

const failed: Partial<RunTestResult> & { name: string; status: string } = {
  name: 'Edit profile',
  status: 'failed',
  failedStep: {
    stepId: 'n2',
    name: 'save',
    action: 'click internal:role=button[name="Save"s]',
    path: ['save'],
  },
  errorMessage: [
    'Step "save" (click internal:role=button[name="Save"s]) failed',
    `no element for getByRole('button', { name: 'Save', exact: true }); closest now: ${saveChanges}`,
    'locator.click: Timeout 2000ms exceeded.',
  ].join('\n'),
  errorLocation: 'save',
  locatorSuggestions: {
    stepId: 'n2',
    step: 2,
    from: 'internal:role=button[name="Save"s]',
    fromLocator: "getByRole('button', { name: 'Save', exact: true })",
    problem: 'none',
    suggestions: [
      {
        selector: 'internal:role=button[name="Save changes"i]',
        locator: saveChanges,
        score: 0.91,
        matches: 1,
      },
      {
        selector: 'internal:role=button[name="Cancel"i]',
        locator: "getByRole('button', { name: 'Cancel' })",
        score: 0.5,
        matches: 1,
      },
    ],
  },
};

const healed: Partial<RunTestResult> & { name: string; status: string } = {
  name: 'Edit profile (retry)',
  status: 'passed',
  healed: [
    {
      stepId: 'n2',
      step: 2,
      from: 'internal:role=button[name="Save"s]',
      to: 'internal:role=button[name="Save changes"i]',
      locator: saveChanges,
    },
  ],
};

const results = () =>
  mergeRuns([runDetail(uuid(10), 'failed', [failed, healed, { name: 'Plain', status: 'passed' }]).data], {
    baseUrl: base,
    projectId,
    timedOut: false,
  });

describe('locator suggestions and healing in the action and the CLI', () => {
  it('gives the failure the failing locator and the closest element as its reason', () => {
    const test = results().tests.find((candidate) => candidate.name === 'Edit profile');
    expect(test?.locatorHint).toEqual({
      step: 2,
      from: "getByRole('button', { name: 'Save', exact: true })",
      problem: 'none',
      closest: saveChanges,
    });
    expect(test && reason(test)).toBe(
      `no element for getByRole('button', { name: 'Save', exact: true }); closest now: ${saveChanges}`,
    );
  });

  it('says "passed (healed: …)" in the summary table and the CLI, never a plain pass', () => {
    const markdown = resultsMarkdown(results());
    expect(markdown).toContain(`✅ passed (healed: step 2 used ${saveChanges})`);
    expect(markdown).toContain('closest now: getByRole');
    const text = summaryText(results(), {
      runUrls: ['http://x/run'],
      dir: '/tmp/a',
      junitPath: '/tmp/j.xml',
    });
    expect(text).toContain(`  ✓ Edit profile (retry): passed (healed: step 2 used ${saveChanges})`);
    expect(text).toContain(
      `      no element for getByRole('button', { name: 'Save', exact: true }); closest now: ${saveChanges}`,
    );
    expect(text).toContain('  ✓ Plain');
    expect(text).not.toContain('  ✓ Plain: ');
  });

  it('puts the closest element into the failure annotation', () => {
    const annotations = annotationsFor(results());
    expect(JSON.stringify(annotations)).toContain(`closest now: ${saveChanges}`);
  });

  it('reads older services without the fields as before', () => {
    const older = mergeRuns(
      [runDetail(uuid(11), 'failed', [{ ...failed, locatorSuggestions: undefined }]).data],
      { baseUrl: base, projectId, timedOut: false },
    ).tests[0];
    expect(older?.locatorHint).toBeUndefined();
    expect(older && reason(older)).toBe('Step "save" (click internal:role=button[name="Save"s]) failed');
  });
});
