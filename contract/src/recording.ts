import { popupStep, RecordedTabs, withFrame } from './recording-tabs.ts';
import type { StepAction } from './step-actions.ts';

/**
 * Playwright's recorder output (its JSONL language: one recorded action per line, after a
 * header line of options) turned into Stepdeck steps. Pure: no browser, no API. The one mapping
 * of recorded actions: `stepdeck record` and the console's live browser both use it.
 *
 * Selectors are the recorder's own `selector` strings, kept verbatim: they are Playwright
 * selector syntax (what `page.getByRole(…)` and friends resolve to, e.g.
 * `internal:role=button[name="Save"i]`), and the runner hands a step's selector to
 * `page.locator()`, so the step finds exactly the element the recorder's generated code would.
 * The structured `locator` beside it only names the step (`Click getByRole('button', …)`).
 */

/** A locator as the JSONL generator writes it: a chain of `{ kind, body, options, next }`. */
export interface RecordedLocator {
  kind: string;
  body: unknown;
  options?: Record<string, unknown>;
  next?: RecordedLocator;
}

/** One recorded action (fields of Playwright's `Action` types that the mapping reads). */
export interface RecordedAction {
  name: string;
  selector?: string;
  locator?: RecordedLocator;
  url?: string;
  text?: string;
  value?: string;
  key?: string;
  modifiers?: number;
  button?: string;
  clickCount?: number;
  position?: { x: number; y: number };
  options?: string[];
  files?: string[];
  substring?: boolean;
  checked?: boolean;
  pageGuid?: string;
  signals?: Array<{ name: string; popupPageGuid?: string }>;
}

export interface RecordedStep {
  name: string;
  action: StepAction;
}

/** A recorded action that has no step: its name and why (`assertSnapshot: no step asserts …`). */
export interface UnmappedAction {
  action: string;
  reason: string;
}

export interface MappedRecording {
  steps: RecordedStep[];
  unmapped: UnmappedAction[];
  /** Files named by `setInputFiles` steps (their contents have to be uploaded with the test). */
  files: string[];
}

/** Parses the recorder's JSONL (the header line of options is skipped; blank lines too). */
export function parseRecording(jsonl: string): RecordedAction[] {
  const actions: RecordedAction[] = [];
  for (const [index, line] of jsonl.split('\n').entries()) {
    if (!line.trim()) continue;
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      throw new Error(`the recorder's output is not JSONL (line ${index + 1})`);
    }
    if (typeof entry !== 'object' || entry === null) continue;
    const name = (entry as { name?: unknown }).name;
    // The header (`{ browserName, launchOptions, … }`) is the only line without a name.
    if (typeof name === 'string') actions.push(entry as RecordedAction);
  }
  return actions;
}

// Bits of the recorder's `modifiers` field, and the key names its own code generator writes.
const modifierNames: Array<[number, string]> = [
  [1, 'Alt'],
  [2, 'ControlOrMeta'],
  [4, 'ControlOrMeta'],
  [8, 'Shift'],
];
function modifierList(modifiers: number | undefined): string[] {
  const names = modifierNames.filter(([bit]) => ((modifiers ?? 0) & bit) !== 0).map(([, name]) => name);
  return [...new Set(names)];
}

const quote = (value: unknown) => `'${String(value).replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const withExact = (method: string, body: unknown, options: Record<string, unknown>) =>
  `${method}(${quote(body)}${options.exact ? ', { exact: true }' : ''})`;

/** The locator as Playwright's JavaScript would write it: `getByRole('button', { name: 'Go' })`. */
export function describeLocator(locator: RecordedLocator | undefined): string {
  const parts: string[] = [];
  for (let part = locator; part; part = part.next) {
    const options = part.options ?? {};
    switch (part.kind) {
      case 'role': {
        const attrs: string[] = [];
        if (typeof options.name === 'string') attrs.push(`name: ${quote(options.name)}`);
        if (options.exact && typeof options.name === 'string') attrs.push('exact: true');
        for (const attr of (options.attrs as Array<{ name: string; value: unknown }> | undefined) ?? [])
          attrs.push(
            `${attr.name}: ${typeof attr.value === 'string' ? quote(attr.value) : String(attr.value)}`,
          );
        parts.push(`getByRole(${quote(part.body)}${attrs.length ? `, { ${attrs.join(', ')} }` : ''})`);
        break;
      }
      case 'test-id':
        parts.push(`getByTestId(${quote(part.body)})`);
        break;
      case 'text':
        parts.push(withExact('getByText', part.body, options));
        break;
      case 'label':
        parts.push(withExact('getByLabel', part.body, options));
        break;
      case 'placeholder':
        parts.push(withExact('getByPlaceholder', part.body, options));
        break;
      case 'alt':
        parts.push(withExact('getByAltText', part.body, options));
        break;
      case 'title':
        parts.push(withExact('getByTitle', part.body, options));
        break;
      case 'frame':
        parts.push('contentFrame()');
        break;
      case 'nth':
        parts.push(`nth(${String(part.body)})`);
        break;
      case 'first':
      case 'last':
        parts.push(`${part.kind}()`);
        break;
      case 'has-text':
        parts.push(`filter({ hasText: ${quote(part.body)} })`);
        break;
      default:
        parts.push(`locator(${quote(part.body)})`);
    }
  }
  return parts.join('.');
}

const stepNameMax = 120;
function stepName(verb: string, action: RecordedAction, detail?: string): string {
  const target = action.selector ? describeLocator(action.locator) || action.selector : '';
  const name = [verb, target, detail].filter(Boolean).join(' ');
  return name.length > stepNameMax ? `${name.slice(0, stepNameMax - 1)}…` : name;
}

type Mapping = { step: RecordedStep } | { reason: string } | { skip: true };

function mapOne(action: RecordedAction): Mapping {
  const selector = action.selector ?? '';
  const needsSelector = (make: () => Mapping): Mapping =>
    selector ? make() : { reason: 'the recorder gave no selector' };
  const step = (name: string, stepAction: StepAction): Mapping => ({ step: { name, action: stepAction } });
  switch (action.name) {
    // The recorder's markers for the tab it opened and the tab closing at the end.
    case 'openPage':
    case 'closePage':
      return { skip: true };
    case 'navigate':
      return action.url
        ? step(`Go to ${action.url}`, { name: 'goto', url: action.url })
        : { reason: 'no URL' };
    case 'click': {
      if (action.button && action.button !== 'left') return { reason: `${action.button} button` };
      const modifiers = modifierList(action.modifiers);
      if (modifiers.length > 0) return { reason: `with ${modifiers.join('+')} held` };
      if (action.position) return { reason: 'at a position inside the element' };
      const count = action.clickCount ?? 1;
      if (count === 2)
        return needsSelector(() => step(stepName('Double-click', action), { name: 'dblclick', selector }));
      if (count !== 1) return { reason: `${count} clicks` };
      return needsSelector(() => step(stepName('Click', action), { name: 'click', selector }));
    }
    case 'hover':
      if (action.position) return { reason: 'at a position inside the element' };
      return needsSelector(() => step(stepName('Hover', action), { name: 'hover', selector }));
    case 'check':
    case 'uncheck':
      return needsSelector(() =>
        step(
          stepName(action.name === 'check' ? 'Check' : 'Uncheck', action),
          action.name === 'check' ? { name: 'check', selector } : { name: 'uncheck', selector },
        ),
      );
    case 'fill':
      return needsSelector(() =>
        step(stepName('Fill', action), { name: 'fill', selector, value: action.text ?? '' }),
      );
    case 'press': {
      if (!action.key) return { reason: 'no key' };
      const key = [...modifierList(action.modifiers), action.key].join('+');
      return step(
        stepName('Press', action, key),
        selector ? { name: 'press', selector, key } : { name: 'press', key },
      );
    }
    case 'select': {
      const options = action.options ?? [];
      if (options.length !== 1) return { reason: `${options.length} options selected (a step selects one)` };
      return needsSelector(() =>
        step(stepName('Select', action, options[0]), {
          name: 'selectOption',
          selector,
          value: options[0] ?? '',
        }),
      );
    }
    case 'setInputFiles':
      return needsSelector(() =>
        step(stepName('Upload to', action), { name: 'setInputFiles', selector, files: action.files ?? [] }),
      );
    case 'assertVisible':
      return needsSelector(() =>
        step(stepName('Expect visible', action), { name: 'assertVisible', selector }),
      );
    case 'assertText':
      return needsSelector(() =>
        step(stepName(action.substring ? 'Expect text in' : 'Expect text of', action), {
          name: 'assertText',
          selector,
          value: action.text ?? '',
          exact: !action.substring,
        }),
      );
    case 'assertValue':
      return needsSelector(() =>
        step(stepName('Expect value of', action), {
          name: 'assertValue',
          selector,
          value: action.value ?? '',
        }),
      );
    case 'assertChecked':
      // `checked` is the state the user asserted (the recorder reads it before the click flips it).
      return needsSelector(() =>
        step(
          stepName(action.checked === false ? 'Expect unchecked' : 'Expect checked', action),
          action.checked === false
            ? { name: 'assertChecked', selector, checked: false }
            : { name: 'assertChecked', selector },
        ),
      );
    case 'assertSnapshot':
      return { reason: 'no step asserts an ARIA snapshot' };
    default:
      return { reason: 'no step does this' };
  }
}

/**
 * Maps recorded actions to steps, in order. Every action that does not become a step is listed
 * in `unmapped` with a reason, except the recorder's own open/close-tab markers. A popup an
 * action opened becomes a `waitForPopup` step, actions on another tab a `switchTab` before
 * them, a tab closed mid-recording a `closeTab` (see `recording-tabs.ts`); iframes entered by a selector
 * become the step's `frame`.
 */
export function mapRecording(actions: RecordedAction[]): MappedRecording {
  const steps: RecordedStep[] = [];
  const unmapped: UnmappedAction[] = [];
  const files = new Set<string>();
  const tabs = new RecordedTabs();
  const marker = (action: RecordedAction) => action.name === 'openPage' || action.name === 'closePage';
  // Tabs closing after the last action are the recording ending, not steps.
  const lastAction = actions.findLastIndex((action) => !marker(action));
  for (const [index, action] of actions.entries()) {
    if (action.name === 'closePage') {
      const close = index < lastAction ? tabs.closed(action.pageGuid) : undefined;
      if (close) steps.push(close);
      continue;
    }
    if (marker(action)) continue;
    const entered = tabs.enter(action.pageGuid);
    if ('reason' in entered) {
      unmapped.push({ action: action.name, reason: entered.reason });
      continue;
    }
    if (entered.step) steps.push(entered.step);
    const mapping = mapOne(action);
    if ('skip' in mapping) continue;
    if ('reason' in mapping) {
      unmapped.push({ action: action.name, reason: mapping.reason });
      continue;
    }
    let step: RecordedStep = { ...mapping.step, action: withFrame(mapping.step.action) };
    const popup = action.signals?.find((signal) => signal.name === 'popup');
    const waiting = popup ? popupStep(step) : undefined;
    if (popup && waiting) {
      step = waiting;
      tabs.opened(popup.popupPageGuid);
    }
    steps.push(step);
    if (step.action.name === 'setInputFiles') for (const file of step.action.files) files.add(file);
    for (const signal of action.signals ?? [])
      if ((signal.name === 'popup' && !waiting) || signal.name === 'download')
        unmapped.push({
          action: `${action.name} → ${signal.name}`,
          reason: `the ${signal.name} it opened is not followed`,
        });
  }
  return { steps, unmapped, files: [...files] };
}
