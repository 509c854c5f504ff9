import { describe, expect, it } from 'vitest';
import { compileProject } from '../../src/runner/compiler/index.ts';
import {
  type Candidate,
  describeSelector,
  locatorFor,
  normalize,
  parseSelector,
  rankCandidates,
  retryChoice,
  similarity,
} from '../../src/runner/compiler/runtime/stepdeck-suggest.ts';
import { healMessageLine } from '../../src/runner/heal-report.ts';

/** The ranking of locator suggestions: pure, deterministic, on hand-made candidates. */

let next = 0;
const element = (fields: Partial<Candidate>): Candidate => ({
  index: ++next,
  tag: 'div',
  role: null,
  name: '',
  testId: null,
  text: '',
  label: null,
  placeholder: null,
  id: null,
  visible: true,
  enabled: true,
  ...fields,
});
const button = (name: string, fields: Partial<Candidate> = {}) =>
  element({ tag: 'button', role: 'button', name, text: name, ...fields });

describe('reading a selector', () => {
  it('reads role and name from the engines getByRole resolves to, exact or not', () => {
    expect(parseSelector('internal:role=button[name="Save"s]')).toMatchObject({
      role: 'button',
      name: 'Save',
      exact: true,
    });
    expect(parseSelector('role=link[name="Say \\"hi\\""i]')).toMatchObject({
      role: 'link',
      name: 'Say "hi"',
    });
    expect(parseSelector('internal:role=heading')).toMatchObject({ role: 'heading', name: null });
  });

  it('reads test ids, labels, placeholders and text, and the last part of a chain', () => {
    expect(parseSelector('internal:testid=[data-testid="save-btn"s]').testId).toBe('save-btn');
    expect(parseSelector('[data-testid="save-btn"]').testId).toBe('save-btn');
    expect(parseSelector('internal:label="Email"i').label).toBe('Email');
    expect(parseSelector('internal:attr=[placeholder="Search"i]').placeholder).toBe('Search');
    expect(parseSelector('text=Sign in').text).toBe('Sign in');
    expect(parseSelector('#form >> internal:text="Send"i').text).toBe('Send');
  });

  it('reads CSS for its tag, its text and the words of its ids and classes', () => {
    const target = parseSelector('button.primary:has-text("Save")');
    expect(target).toMatchObject({ role: 'button', text: 'Save' });
    expect(parseSelector('#save-button').hint).toBe('save-button');
  });

  it('writes a selector back as Playwright code', () => {
    expect(describeSelector('internal:role=button[name="Save"s]')).toBe(
      "getByRole('button', { name: 'Save', exact: true })",
    );
    expect(describeSelector('internal:testid=[data-testid="x"s]')).toBe("getByTestId('x')");
    expect(describeSelector('#save')).toBe("locator('#save')");
  });
});

describe('similarity', () => {
  it('is 1 for the same words however written, high for a name that grew, low for another name', () => {
    expect(normalize('Sign-In')).toBe('sign in');
    expect(similarity('Sign-in', 'sign in')).toBe(1);
    expect(similarity('Save', 'Save changes')).toBeGreaterThanOrEqual(0.85);
    expect(similarity('Save', 'Cancel')).toBeLessThan(0.4);
    expect(similarity('', 'Save')).toBe(0);
  });
});

describe('ranking', () => {
  it('puts the renamed button first, as getByRole with its new name', () => {
    const page = [
      element({ tag: 'h1', role: 'heading', name: 'Profile', text: 'Profile' }),
      button('Cancel'),
      button('Save changes'),
      element({ tag: 'a', role: 'link', name: 'Save for later', text: 'Save for later' }),
    ];
    const ranked = rankCandidates(parseSelector('internal:role=button[name="Save"s]'), page);
    expect(ranked[0]).toMatchObject({
      locator: "getByRole('button', { name: 'Save changes' })",
      selector: 'internal:role=button[name="Save changes"i]',
    });
    // Same role and a similar name beat a similar name alone.
    const order = ranked.map((entry) => entry.locator);
    expect(order.indexOf("getByRole('link', { name: 'Save for later' })")).toBeGreaterThan(0);
  });

  it('prefers the same test id, and names the element by it', () => {
    const page = [button('Store'), button('Submit', { testId: 'save-btn' })];
    const ranked = rankCandidates(parseSelector('internal:testid=[data-testid="save-btn"s]'), page);
    expect(ranked[0]).toMatchObject({ locator: "getByTestId('save-btn')", score: 1 });
  });

  it('puts visible and enabled elements first, then document order on a tie', () => {
    const hidden = button('Save changes', { visible: false });
    const disabled = button('Save changes!', { enabled: false });
    const shown = button('Save  changes');
    const ranked = rankCandidates(parseSelector('internal:role=button[name="Save changes"s]'), [
      hidden,
      disabled,
      shown,
    ]);
    expect(ranked.map((entry) => entry.candidate)).toEqual([shown, disabled, hidden]);
    const twins = [button('Save draft'), button('Save draft')];
    const tie = rankCandidates(parseSelector('internal:role=button[name="Save"s]'), twins);
    // One locator for both, kept by the first in the document.
    expect(tie).toHaveLength(1);
    expect(tie[0]?.candidate).toBe(twins[0]);
  });

  it('is deterministic and keeps at most five, none below the minimum score', () => {
    const page = Array.from({ length: 40 }, (_, at) => button(`Save item ${at}`));
    const target = parseSelector('internal:role=button[name="Save"s]');
    const first = rankCandidates(target, page);
    expect(first).toHaveLength(5);
    expect(rankCandidates(target, [...page])).toEqual(first);
    const unrelated = [
      element({ tag: 'p', text: 'Sunny, 21 degrees.' }),
      element({ tag: 'h1', role: 'heading', name: 'Weather' }),
    ];
    expect(rankCandidates(target, unrelated)).toEqual([]);
  });

  it('never proposes the selector that failed', () => {
    const ranked = rankCandidates(
      parseSelector('internal:role=button[name="Save changes"i]'),
      [button('Save changes')],
      {
        exclude: 'internal:role=button[name="Save changes"i]',
      },
    );
    expect(ranked).toEqual([]);
  });

  it('writes exact locators and escapes quotes', () => {
    expect(locatorFor(button('Say "hi"'), true)).toEqual({
      selector: 'internal:role=button[name="Say \\"hi\\""s]',
      locator: `getByRole('button', { name: 'Say "hi"', exact: true })`,
    });
    expect(locatorFor(element({ label: "Team's name", tag: 'input' }))?.locator).toBe(
      "getByLabel('Team\\'s name')",
    );
  });
});

describe('the retry choice and the failure line', () => {
  const suggestion = (score: number, matches = 1) => ({
    selector: `s${score}`,
    locator: `l${score}`,
    score,
    matches,
  });

  it('retries only with a clear, unique best suggestion', () => {
    expect(retryChoice([suggestion(0.91), suggestion(0.5)])?.score).toBe(0.91);
    expect(retryChoice([suggestion(0.6)])).toBeNull();
    expect(retryChoice([suggestion(0.91, 2)])).toBeNull();
    expect(retryChoice([suggestion(0.91), suggestion(0.9)])).toBeNull();
    expect(retryChoice([])).toBeNull();
  });

  it('names the failing locator and the closest one', () => {
    expect(
      healMessageLine({
        selector: 'internal:role=button[name="Save"i]',
        problem: 'none',
        suggestions: [{ ...suggestion(0.9), locator: "getByRole('button', { name: 'Save changes' })" }],
      }),
    ).toBe(
      "no element for getByRole('button', { name: 'Save' }); closest now: getByRole('button', { name: 'Save changes' })",
    );
    expect(healMessageLine({ selector: '#x', problem: 'many', suggestions: [] })).toBe(
      "several elements match locator('#x'); nothing similar on the page now",
    );
  });
});

describe('the compiled project', () => {
  const test = (id: string, config: Record<string, unknown>) => ({
    id,
    name: `test ${id}`,
    type: 'ui' as const,
    config,
    vars: null,
    parameters: null,
    files: [],
    steps: [
      {
        id: `node-${id}`,
        name: 'save',
        action: { name: 'click' as const, selector: 'internal:role=button[name="Save"s]' },
      },
    ],
  });

  it('hands each test its heal mode, and every locator step its node id, through the runtime', () => {
    const project = compileProject({
      tests: [test('a', { heal: 'retry' }), test('b', {}), test('c', { heal: 'off' })],
      config: null,
      secretNames: [],
    });
    const spec = (id: string) => String(project.files.get(project.specFiles.get(id) ?? ''));
    expect(spec('a')).toContain('heal: "retry"');
    expect(spec('b')).not.toContain('heal:');
    expect(spec('c')).toContain('heal: "off"');
    expect(spec('a')).toContain('await sd.locator(page, "internal:role=button[name=\\"Save\\"s]").click();');
    expect(spec('a')).toContain('}, "node-a");');
    expect(project.files.has('stepdeck-heal.ts')).toBe(true);
    expect(project.files.has('stepdeck-suggest.ts')).toBe(true);
  });
});
