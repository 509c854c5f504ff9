import type { RunConfig, StepAction, StepNode } from '@stepdeck/contract';

/**
 * The Ledger suite (ledger.spec.ts beside this file) written as Stepdeck steps, test for test and
 * check for check. Locators are the selectors Playwright's `getBy*` build, as the recorder writes
 * them; the one-time code comes from a `totp` step on the secret `LEDGER_TOTP`; `page.route` is
 * `mockRoute`, `waitForEvent('popup')` is `waitForPopup`, `contentFrame()` is the `frame` option,
 * `test.use({ ...devices['Pixel 7'] })` and `{ locale }` are the test's run config.
 */

export interface LedgerStepsTest {
  title: string;
  steps: StepNode[];
  config?: Partial<RunConfig>;
}

let serial = 0;
const step = (name: string, action: StepAction, children?: StepNode[]): StepNode => ({
  id: `ledger-step-${++serial}`,
  name,
  action,
  ...(children ? { children } : {}),
});

const label = (text: string) => `internal:label="${text}"i`;
const role = (kind: string, name?: string) =>
  name === undefined ? `internal:role=${kind}` : `internal:role=${kind}[name="${name}"i]`;
const expense = 'internal:testid=[data-testid="expense"s]';
const total = role('status', 'Total');
const alert = role('alert');
const widget = 'iframe[title="Budget widget"]';

const fill = (field: string, value: string) =>
  step(`Fill ${field}`, { name: 'fill', selector: label(field), value });
const click = (kind: string, name: string) =>
  step(`Click ${name}`, { name: 'click', selector: role(kind, name) });
const visible = (selector: string, what: string) =>
  step(`${what} is visible`, { name: 'assertVisible', selector });
const heading = (name: string) => visible(role('heading', name), `Heading ${name}`);

const openLogin = () => step('Open the sign-in page', { name: 'goto', url: 'login' });
const credentials = (password: string, code: string) => [
  fill('Email', 'ada@example.com'),
  fill('Password', password),
  fill('One-time code', code),
  click('button', 'Sign in'),
];
const oneTimeCode = () =>
  step('One-time code', { name: 'totp', secret: '{{secrets.LEDGER_TOTP}}', variable: 'code' });
const signIn = () =>
  step('Sign in', { name: 'group' }, [
    openLogin(),
    oneTimeCode(),
    ...credentials('correct horse', '{{vars.code}}'),
    heading('Expenses'),
  ]);
const texts = (selector: string, values: string[]) =>
  step(`Shows ${values.join(', ')}`, { name: 'assertTexts', selector, values, exact: true });
const mock = (json: unknown) =>
  step('Mock the expenses API', { name: 'mockRoute', url: '**/api/expenses', json });
const noSeriousViolations = () =>
  step('No serious accessibility violations', { name: 'assertAccessible', impact: 'serious' });
const addExpense = (description: string, amount: string) => [
  fill('Description', description),
  fill('Amount', amount),
  click('button', 'Add expense'),
];

const tests: LedgerStepsTest[] = [
  {
    title: 'Sign in › signs in with a valid one-time code',
    steps: [signIn(), step('At /expenses', { name: 'assertUrl', value: 'expenses' })],
  },
  {
    title: 'Sign in › refuses a wrong one-time code',
    steps: [
      openLogin(),
      ...credentials('correct horse', '000000'),
      step('The refusal', {
        name: 'assertText',
        selector: alert,
        value: 'Wrong email, password or one-time code.',
        exact: true,
      }),
    ],
  },
  {
    title: 'Sign in › refuses a wrong password',
    steps: [
      openLogin(),
      oneTimeCode(),
      ...credentials('wrong horse', '{{vars.code}}'),
      visible(alert, 'The refusal'),
      heading('Sign in'),
    ],
  },
  {
    title: 'Sign in › has no serious accessibility violations on the sign-in page',
    steps: [openLogin(), noSeriousViolations()],
  },
  {
    title: 'Expenses › lists the expenses from the API',
    steps: [signIn(), texts(expense, ['Coffee €3.50', 'Train ticket €12.00'])],
  },
  {
    title: 'Expenses › shows the total',
    steps: [signIn(), step('Total', { name: 'assertText', selector: total, value: '€15.50', exact: true })],
  },
  {
    title: 'Expenses › adds an expense and updates the total',
    steps: [
      signIn(),
      ...addExpense('Lunch', '4.50'),
      step('The API created it', {
        name: 'waitForResponse',
        url: '**/api/expenses',
        method: 'POST',
        status: 201,
        jsonPath: '$.expense.description',
        equals: 'Lunch',
      }),
      texts(expense, ['Coffee €3.50', 'Train ticket €12.00', 'Lunch €4.50']),
      step('Total', { name: 'assertText', selector: total, value: '€20.00', exact: true }),
    ],
  },
  {
    title: 'Expenses › refuses an expense without a description',
    steps: [
      signIn(),
      fill('Amount', '4.50'),
      click('button', 'Add expense'),
      step('The refusal', {
        name: 'assertText',
        selector: alert,
        value: 'Enter a description.',
        exact: true,
      }),
      step('Still 2 expenses', { name: 'assertCount', selector: expense, value: 2 }),
    ],
  },
  {
    title: 'Expenses › shows the expenses a mocked API returns',
    steps: [
      mock({ expenses: [{ description: 'Mocked', amount: 1 }] }),
      signIn(),
      texts(expense, ['Mocked €1.00']),
    ],
  },
  {
    title: 'Expenses › says so when the API cannot be reached',
    steps: [
      step('The API is down', { name: 'mockRoute', url: '**/api/expenses', abort: true }),
      signIn(),
      step('The message', {
        name: 'assertText',
        selector: alert,
        value: 'Could not load expenses.',
        exact: true,
      }),
    ],
  },
  {
    title: 'Expenses › says so when the API fails',
    steps: [
      step('The API fails', { name: 'mockRoute', url: '**/api/expenses', status: 500, body: 'down' }),
      signIn(),
      step('The message', {
        name: 'assertText',
        selector: alert,
        value: 'Could not load expenses.',
        exact: true,
      }),
    ],
  },
  {
    title: 'Expenses › shows an empty state',
    steps: [
      mock({ expenses: [] }),
      signIn(),
      visible('internal:text="No expenses yet."i', 'The empty state'),
    ],
  },
  {
    title: 'Expenses › has no serious accessibility violations on the expenses page',
    steps: [
      signIn(),
      step('2 expenses', { name: 'assertCount', selector: expense, value: 2 }),
      noSeriousViolations(),
    ],
  },
  {
    title: 'Tabs, popups and frames › opens the receipt help in a new tab',
    steps: [
      signIn(),
      step('Open the help', { name: 'waitForPopup', selector: role('link', 'Receipt help') }),
      step('Its title', { name: 'assertTitle', value: 'Receipt help · Ledger' }),
      heading('Receipt help'),
    ],
  },
  {
    title: 'Tabs, popups and frames › prints the expenses in a popup',
    steps: [
      signIn(),
      step('Open the print preview', { name: 'waitForPopup', selector: role('button', 'Print') }),
      texts(role('listitem'), ['Coffee', 'Train ticket']),
    ],
  },
  {
    title: 'Tabs, popups and frames › closes the print preview and goes on with the expenses',
    steps: [
      signIn(),
      step('Open the print preview', { name: 'waitForPopup', selector: role('button', 'Print') }),
      heading('Print preview'),
      step('Close it', { name: 'closeTab' }),
      ...addExpense('Taxi', '20'),
      step('3 expenses', { name: 'assertCount', selector: expense, value: 3 }),
    ],
  },
  {
    title: 'Tabs, popups and frames › sets a budget in the widget',
    steps: [
      signIn(),
      step('Budget', {
        name: 'fill',
        selector: label('Monthly budget'),
        value: '250',
        frame: widget,
      }),
      step('Set it', { name: 'click', selector: role('button', 'Set budget'), frame: widget }),
      step('Shown', {
        name: 'assertVisible',
        selector: 'internal:text="Budget: 250"i',
        frame: widget,
      }),
    ],
  },
  {
    title: 'Tabs, popups and frames › shows a tip in the widget’s own frame',
    steps: [
      signIn(),
      step('The tip', {
        name: 'assertVisible',
        selector: 'internal:text="Tip: set a budget below your income."i',
        frame: [widget, 'iframe[title="Tip"]'],
      }),
    ],
  },
  {
    title: 'Settings and navigation › keeps the weekly summary setting after a reload',
    steps: [
      signIn(),
      click('link', 'Settings'),
      step('Weekly summary', { name: 'check', selector: label('Email me a weekly summary') }),
      step('Reload', { name: 'reload' }),
      step('Still checked', { name: 'assertChecked', selector: label('Email me a weekly summary') }),
      step('Kept in localStorage', {
        name: 'assertScript',
        script: "localStorage.getItem('ledger-weekly')",
        equals: 'yes',
      }),
    ],
  },
  {
    title: 'Settings and navigation › goes back and forward between pages',
    steps: [
      signIn(),
      click('link', 'Settings'),
      heading('Settings'),
      step('Back', { name: 'goBack' }),
      step('At /expenses', { name: 'assertUrl', value: 'expenses' }),
      step('Forward', { name: 'goForward' }),
      step('At /settings', { name: 'assertUrl', value: 'settings' }),
    ],
  },
  {
    title: 'Settings and navigation › signs out and protects the expenses page',
    steps: [
      signIn(),
      click('button', 'Sign out'),
      heading('Sign in'),
      step('Open the expenses', { name: 'goto', url: 'expenses' }),
      step('Sent to sign in', { name: 'assertUrl', value: 'login' }),
    ],
  },
  {
    title: 'On a phone › collapses the navigation into a menu',
    config: { device: 'Pixel 7' },
    steps: [
      signIn(),
      step('Settings hidden', { name: 'assertHidden', selector: role('link', 'Settings') }),
      click('button', 'Menu'),
      step('Menu expanded', {
        name: 'assertAttribute',
        selector: role('button', 'Menu'),
        attribute: 'aria-expanded',
        value: 'true',
      }),
      click('link', 'Settings'),
      heading('Settings'),
    ],
  },
  {
    title: 'In German › formats amounts in the browser’s language',
    config: { locale: 'de-DE' },
    steps: [signIn(), step('Total in German', { name: 'assertText', selector: total, value: '15,50' })],
  },
];

export function ledgerStepsSuite(): LedgerStepsTest[] {
  return tests;
}
