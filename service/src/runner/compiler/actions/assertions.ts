import type { StepNode } from '@stepdeck/contract';
import { lit, locator, templated as t } from '../code.ts';

/** What every assertion on the page may add: `not` inverts it, `timeout` replaces the default wait. */
interface AssertionOptions {
  not?: boolean | undefined;
  timeout?: number | undefined;
}

/**
 * `await expect(target)[.not].matcher(args…, { …options, timeout })`: Playwright's own
 * assertion, so its message (expected, received, the call log) is the step's failure text.
 */
function expectCall(
  target: string,
  assertion: AssertionOptions,
  matcher: string,
  args: string[],
  options: Record<string, string> = {},
): string[] {
  const entries = Object.entries(options);
  if (assertion.timeout !== undefined) entries.push(['timeout', lit(assertion.timeout)]);
  const all =
    entries.length > 0
      ? [...args, `{ ${entries.map(([key, value]) => `${key}: ${value}`).join(', ')} }`]
      : args;
  return [`await expect(${target})${assertion.not ? '.not' : ''}.${matcher}(${all.join(', ')});`];
}

/** A user value as a string, or as a regular expression when `regex` is set (checked at run time). */
const stringOrPattern = (value: string, regex: boolean | undefined) =>
  regex ? `sd.pattern(${t(value)})` : t(value);

/** Code of the assertions on the page and its elements; null for other actions. */
export function assertionCode(step: StepNode): string[] | null {
  const action = step.action;
  switch (action.name) {
    case 'assertVisible':
      return expectCall(locator(action.selector), action, 'toBeVisible', []);
    case 'assertHidden':
      return expectCall(locator(action.selector), action, 'toBeHidden', []);
    case 'assertEnabled':
      return expectCall(locator(action.selector), action, 'toBeEnabled', []);
    case 'assertDisabled':
      return expectCall(locator(action.selector), action, 'toBeDisabled', []);
    case 'assertChecked':
      return expectCall(
        locator(action.selector),
        action,
        'toBeChecked',
        [],
        action.checked === false ? { checked: 'false' } : {},
      );
    case 'assertText':
      return expectCall(locator(action.selector), action, action.exact ? 'toHaveText' : 'toContainText', [
        t(action.value),
      ]);
    case 'assertTexts':
      // Every match, in order: each text whole (`exact`), or each element containing its text.
      return expectCall(locator(action.selector), action, 'toHaveText', [
        action.exact ? `sd.tv(${lit(action.values)})` : `sd.containing(${lit(action.values)})`,
      ]);
    case 'assertValue':
      return expectCall(locator(action.selector), action, 'toHaveValue', [t(action.value)]);
    case 'assertClass':
      // Exact: the whole class attribute; else every class named is present.
      return expectCall(locator(action.selector), action, action.exact ? 'toHaveClass' : 'toContainClass', [
        t(action.value),
      ]);
    case 'assertAttribute':
      return expectCall(
        locator(action.selector),
        action,
        'toHaveAttribute',
        action.value === undefined
          ? [t(action.attribute)]
          : [t(action.attribute), stringOrPattern(action.value, action.regex)],
      );
    case 'assertCss':
      return expectCall(locator(action.selector), action, 'toHaveCSS', [
        t(action.property),
        stringOrPattern(action.value, action.regex),
      ]);
    case 'assertUrl':
      // An absolute URL or a path is matched exactly (paths against baseURL); anything else is a substring.
      return /^([a-z][a-z0-9+.-]*:|\/)/i.test(action.value)
        ? expectCall('page', action, 'toHaveURL', [t(action.value)])
        : expectCall('page', action, 'toHaveURL', [`(url) => url.href.includes(${t(action.value)})`]);
    case 'assertTitle':
      return expectCall('page', action, 'toHaveTitle', [t(action.value)]);
    case 'assertCount':
      return expectCall(locator(action.selector), action, 'toHaveCount', [lit(action.value)]);
    case 'assertScript': {
      // Polled until it holds (Playwright's `expect.poll`): the last value read is the one reported.
      const poll =
        action.matches === undefined
          ? `() => sd.evaluate(page, ${t(action.script)})`
          : `async () => String(await sd.evaluate(page, ${t(action.script)}))`;
      const [matcher, args] =
        action.matches !== undefined
          ? ['toMatch', [`sd.pattern(${t(action.matches)})`]]
          : action.equals !== undefined
            ? ['toEqual', [`sd.tv(${lit(action.equals)})`]]
            : ['toBeTruthy', []];
      const wanted =
        action.matches !== undefined
          ? 'match the pattern'
          : action.equals !== undefined
            ? 'equal the expected value'
            : 'be truthy';
      // Polled about as often as `page.waitForFunction` checks (each frame), not at
      // `expect.poll`'s default 100, 250, 500, 1000 ms: a state that holds 30 ms after the step
      // starts would otherwise cost the test a quarter of a second.
      const options = [
        `message: ${lit(`the page script's value should ${action.not ? 'not ' : ''}${wanted}`)}`,
        'intervals: [16, 32, 50, 100]',
      ];
      if (action.timeout !== undefined) options.push(`timeout: ${lit(action.timeout)}`);
      return [
        `await expect.poll(${poll}, { ${options.join(', ')} })${action.not ? '.not' : ''}.${matcher}(${args.join(', ')});`,
      ];
    }
    default:
      return null;
  }
}
