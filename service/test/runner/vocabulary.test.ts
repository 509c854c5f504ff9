import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CompilableTest,
  type CompiledProject,
  compileProject,
  type ExecutedTest,
  type ExecutionResult,
  executeProject,
} from '../../src/runner/index.ts';
import { removeTempDirs, step, tempDir, uiTest } from './fixtures.ts';
import {
  passingVocabularySteps,
  startVocabularySite,
  TODO_TOKEN,
  type VocabularySite,
} from './vocabulary-site.ts';

/**
 * Navigation, element-state and page-script steps in one run of real Chromium against a todo
 * app on loopback: every step passes where it should, and each kind of failure names its step
 * with what was expected and what was received.
 */

const passingId = 'b0000000-0000-4000-8000-000000000000';
let serial = 0;
const failingId = () => `b1000000-0000-4000-8000-${String(++serial).padStart(12, '0')}`;

/** A test that opens the app, optionally prepares it, then fails at its last step. */
function failing(name: string, last: CompilableTest['steps'][number], prepare: CompilableTest['steps'] = []) {
  return { id: failingId(), name, steps: [step('Open', { name: 'goto', url: '/' }), ...prepare, last] };
}

const failures = {
  unchecked: failing(
    'Unchecked box',
    step('Agreed', { name: 'assertChecked', selector: '#agree', timeout: 300 }),
  ),
  disabled: failing(
    'Disabled save',
    step('Can save', { name: 'assertEnabled', selector: '#save', timeout: 300 }),
  ),
  classPresent: failing(
    'Class present',
    step('Not active', { name: 'assertClass', selector: '#box', value: 'active', not: true, timeout: 300 }),
  ),
  attribute: failing(
    'Attribute pattern',
    step('Closed', {
      name: 'assertAttribute',
      selector: '#box',
      attribute: 'data-state',
      value: '^clos',
      regex: true,
      timeout: 300,
    }),
  ),
  css: failing(
    'Colour',
    step('Blue', {
      name: 'assertCss',
      selector: '#box',
      property: 'color',
      value: 'rgb(0, 0, 255)',
      timeout: 300,
    }),
  ),
  texts: failing(
    'Todo list',
    step('Three todos', {
      name: 'assertTexts',
      selector: 'li.todo',
      values: ['Buy milk', 'Walk dog'],
      exact: true,
      timeout: 300,
    }),
    [
      step('Clear', { name: 'evaluate', script: 'localStorage.clear()' }),
      step('Add', { name: 'fill', selector: '#new', value: 'Buy milk' }),
      step('Enter', { name: 'press', selector: '#new', key: 'Enter' }),
    ],
  ),
  scriptEquals: failing(
    'Stored todos',
    step('Two stored', {
      name: 'assertScript',
      script: "JSON.parse(localStorage.getItem('todos') || '[]').length",
      equals: 2,
      timeout: 500,
    }),
    [step('Clear', { name: 'evaluate', script: 'localStorage.clear()' })],
  ),
  scriptTruthy: failing(
    'Logged in flag',
    step('Logged in', {
      name: 'assertScript',
      script: "return localStorage.getItem('session');",
      timeout: 500,
    }),
  ),
  scriptThrows: failing(
    'Broken script',
    step('Read state', { name: 'evaluate', script: 'window.app.state' }),
  ),
  noHistory: failing('No history', step('Back', { name: 'goBack' })),
};

describe('navigation, element-state and page-script steps (real Chromium)', () => {
  let site: VocabularySite;
  let result: ExecutionResult;
  let project: CompiledProject;
  const byId = (id: string): ExecutedTest => {
    const found = result.tests.find((test) => test.testId === id);
    if (!found) throw new Error(`no result for ${id}`);
    return found;
  };

  beforeAll(async () => {
    site = await startVocabularySite();
    const config = {
      use: { baseURL: site.url, actionTimeout: 10_000, trace: 'off', screenshot: 'off', video: 'off' },
    };
    const tests: CompilableTest[] = [
      uiTest(passingId, 'Todo app, every new step', passingVocabularySteps(), {
        config,
        vars: { item: 'Buy milk' },
      }),
      ...Object.values(failures).map((test) => uiTest(test.id, test.name, test.steps, { config })),
    ];
    project = compileProject({ tests, config: null, secretNames: ['TODO_TOKEN'] });
    result = await executeProject({
      dir: await tempDir('vocabulary'),
      project,
      env: { STEPDECK_SECRET_TODO_TOKEN: TODO_TOKEN },
      signal: new AbortController().signal,
    });
  }, 300_000);
  afterAll(async () => {
    await site?.close();
    await removeTempDirs();
  });

  it('runs every new step green against the app', () => {
    const test = byId(passingId);
    const failed = test.steps.filter((step) => step.status !== 'passed');
    expect(failed.map((step) => `${step.name}: ${step.error}`)).toEqual([]);
    expect(test.status).toBe('passed');
    expect(test.steps).toHaveLength(passingVocabularySteps().length);
  });

  it('keeps a secret used in a page script out of the generated files and the results', () => {
    const spec = String(project.files.get(project.specFiles.get(passingId) ?? ''));
    expect(spec).toContain('{{secrets.TODO_TOKEN}}');
    for (const content of project.files.values()) expect(String(content)).not.toContain(TODO_TOKEN);
    expect(JSON.stringify(byId(passingId))).not.toContain(TODO_TOKEN);
  });

  const failure = (id: string) => {
    const test = byId(id);
    expect(test.status).toBe('failed');
    return test;
  };

  it('checked and enabled states: expected and received in words', () => {
    const unchecked = failure(failures.unchecked.id);
    expect(unchecked.errorMessage?.split('\n')[0]).toBe('Step "Agreed" (assertChecked #agree) failed');
    expect([unchecked.expected, unchecked.received]).toEqual(['"checked"', '"unchecked"']);
    const disabled = failure(failures.disabled.id);
    expect(disabled.errorMessage?.split('\n')[0]).toBe('Step "Can save" (assertEnabled #save) failed');
    expect([disabled.expected, disabled.received]).toEqual(['"enabled"', '"disabled"']);
  });

  it('class, attribute and CSS: the value wanted and the one found', () => {
    const present = failure(failures.classPresent.id);
    expect(present.errorMessage?.split('\n')[0]).toBe('Step "Not active" (assertClass not #box) failed');
    expect(present.expected).toBe('"active"');
    expect(present.received).toBe('"card active"');
    const attribute = failure(failures.attribute.id);
    expect(attribute.failedStep?.action).toBe('assertAttribute #box data-state');
    expect([attribute.expected, attribute.received]).toEqual(['"/^clos/"', '"open"']);
    const css = failure(failures.css.id);
    expect(css.failedStep?.action).toBe('assertCss #box color');
    expect([css.expected, css.received]).toEqual(['"rgb(0, 0, 255)"', '"rgb(255, 0, 0)"']);
  });

  it('a list of texts: the whole list wanted and the whole list found', () => {
    const texts = failure(failures.texts.id);
    expect(texts.failedStep?.name).toBe('Three todos');
    expect(texts.expected).toBe('["Buy milk","Walk dog"]');
    expect(texts.received).toBe('["Buy milk"]');
  });

  it('page-script assertions report the last value the script returned', () => {
    const equals = failure(failures.scriptEquals.id);
    expect(equals.errorMessage?.split('\n')[0]).toBe(
      `Step "Two stored" (assertScript JSON.parse(localStorage.getItem('todos') || '[]').length) failed`,
    );
    expect([equals.expected, equals.received]).toEqual(['2', '0']);
    expect(equals.errorMessage).toMatch(
      /\nthe page script's value should equal the expected value\nExpected: 2\nReceived: 0\n/,
    );
    const truthy = failure(failures.scriptTruthy.id);
    expect(truthy.failedStep?.name).toBe('Logged in');
    expect(truthy.received).toBe('null');
    expect(truthy.errorMessage).toBe(
      `Step "Logged in" (assertScript return localStorage.getItem('session');) failed\nthe page script's value should be truthy\nReceived: null\nCall Log:\n- Timeout 500ms exceeded while waiting on the predicate`,
    );
  });

  it('a script that throws in the page, and going back without history, say why', () => {
    const thrown = failure(failures.scriptThrows.id);
    expect(thrown.errorMessage).toMatch(
      /^Step "Read state" \(evaluate window\.app\.state\) failed\nthe page script failed: TypeError: Cannot read properties of undefined/,
    );
    const back = failure(failures.noHistory.id);
    expect(back.errorMessage).toBe(
      'Step "Back" (goBack) failed\ngoBack: this tab has no earlier page in its history',
    );
  });
});
