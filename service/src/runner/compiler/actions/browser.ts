import type { StepNode } from '@stepdeck/contract';
import { fileFor, lit, locator, safeSegment, type TestContext, templated as t } from '../code.ts';
import { stepTitle } from '../outline.ts';

/** Code of the actions that drive the page (navigation, input, reading it); null for others. */
export function browserActionCode(ctx: TestContext, step: StepNode): string[] | null {
  const action = step.action;
  switch (action.name) {
    case 'goto':
      return [`await sd.goto(page, ${t(action.url)});`];
    case 'reload':
      return ['await page.reload();'];
    case 'goBack':
    case 'goForward':
      return [`await sd.${action.name}(page);`];
    case 'click':
    case 'dblclick':
    case 'hover':
    case 'check':
    case 'uncheck':
      return [`await ${locator(action.selector)}.${action.name}();`];
    case 'fill':
      return [`await ${locator(action.selector)}.fill(${t(action.value)});`];
    case 'type': {
      const delay = action.delay ? `, { delay: ${lit(action.delay)} }` : '';
      return [`await ${locator(action.selector)}.pressSequentially(${t(action.value)}${delay});`];
    }
    case 'focus':
    case 'blur':
      return [`await ${locator(action.selector)}.${action.name}();`];
    case 'scrollIntoView':
      return [`await ${locator(action.selector)}.scrollIntoViewIfNeeded();`];
    case 'dragTo':
      return [`await ${locator(action.selector)}.dragTo(${locator(action.target)});`];
    case 'dispatchEvent': {
      const init = action.eventInit ? `, sd.tv(${lit(action.eventInit)})` : '';
      return [`await ${locator(action.selector)}.dispatchEvent(${t(action.event)}${init});`];
    }
    case 'press':
      return action.selector
        ? [`await ${locator(action.selector)}.press(${t(action.key)});`]
        : [`await page.keyboard.press(${t(action.key)});`];
    case 'selectOption':
      return [`await ${locator(action.selector)}.selectOption(${t(action.value)});`];
    case 'setInputFiles': {
      const paths: string[] = [];
      for (const filename of action.files) {
        const relative = fileFor(ctx, step, filename);
        if (!relative) {
          return [
            `throw new Error(${lit(`setInputFiles: the file "${filename}" was not uploaded for this step`)});`,
          ];
        }
        paths.push(`sd.file(${lit(relative)})`);
      }
      return [`await ${locator(action.selector)}.setInputFiles([${paths.join(', ')}]);`];
    }
    case 'waitFor':
      return [`await ${locator(action.selector)}.waitFor({ state: ${lit(action.state ?? 'visible')} });`];
    case 'extract': {
      const read =
        action.attribute === 'value'
          ? `await ${locator(action.selector)}.inputValue()`
          : action.attribute
            ? `(await ${locator(action.selector)}.getAttribute(${t(action.attribute)})) ?? ''`
            : `((await ${locator(action.selector)}.textContent()) ?? '').trim()`;
      return [`sd.setVar(${lit(action.variable)}, ${read});`];
    }
    case 'screenshot': {
      const label = safeSegment(action.label?.trim() || stepTitle(step));
      const file = /\.png$/i.test(label) ? label : `${label}.png`;
      // Written to the test's output folder, then attached under its label.
      return [
        `await testInfo.attach(${lit(file)}, { path: await sd.screenshotFile(page, ${lit(file)}), contentType: 'image/png' });`,
      ];
    }
    default:
      return null;
  }
}
