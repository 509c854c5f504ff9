import { createHmac, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Ledger, a small expenses app of the kind teams test: a sign-in with a one-time code (RFC 6238,
 * checked here with node:crypto so that the code generators under test are checked against an
 * independent implementation), an expenses page reading and writing a JSON API, a help page that
 * opens in a new tab, a print preview in a popup window, a budget widget in an iframe with a tip
 * in a nested one, settings kept in localStorage, a layout that collapses into a menu on phones,
 * amounts in the browser's locale. Served on loopback in its correct version and in
 * deliberately broken ones (mutants), each a single behaviour a user would notice.
 */
export const MUTANTS = {
  anyCode: 'accepts any one-time code',
  silentApiError: 'shows nothing when the expenses cannot be loaded',
  staleTotal: 'does not update the total after an expense is added',
  emptyPrint: 'prints an empty preview',
  stuckWidget: 'the budget widget ignores "Set budget"',
  forgetfulSettings: 'does not keep the settings after a reload',
  logoWithoutAlt: 'the logo has no text alternative',
  noPhoneMenu: 'does not collapse the navigation on a phone',
  fixedLocale: 'formats amounts in en-US whatever the browser’s language',
} as const;
export type Variant = 'correct' | keyof typeof MUTANTS;

export const LEDGER_USER = { email: 'ada@example.com', password: 'correct horse' } as const;
/** The user's TOTP key (base32), as an authenticator app would hold it. */
export const LEDGER_TOTP_KEY = 'JBSWY3DPEHPK3PXP';
export const LEDGER_TOTP_URI = `otpauth://totp/Ledger:${encodeURIComponent(LEDGER_USER.email)}?secret=${LEDGER_TOTP_KEY}&issuer=Ledger&algorithm=SHA1&digits=6&period=30`;

function base32(text: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const char of text.replace(/=+$/, '')) bits += alphabet.indexOf(char).toString(2).padStart(5, '0');
  const bytes: number[] = [];
  for (let i = 0; i + 8 <= bits.length; i += 8) bytes.push(Number.parseInt(bits.slice(i, i + 8), 2));
  return Buffer.from(bytes);
}

/** RFC 6238 with SHA-1, 6 digits, 30 s steps; one step either side is accepted, as most servers do. */
function validCode(code: string, now = Date.now()): boolean {
  const key = base32(LEDGER_TOTP_KEY);
  for (const drift of [-1, 0, 1]) {
    const counter = Buffer.alloc(8);
    counter.writeBigUInt64BE(BigInt(Math.floor(now / 30_000) + drift));
    const mac = createHmac('sha1', key).update(counter).digest();
    const offset = (mac[mac.length - 1] as number) & 0xf;
    const value = (mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000;
    if (String(value).padStart(6, '0') === code) return true;
  }
  return false;
}

const shell = (variant: Variant, title: string, body: string, script = '') => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>
  body { font-family: sans-serif; margin: 0; color: #111; background: #fff; }
  header { display: flex; gap: 16px; align-items: center; padding: 8px 16px; border-bottom: 1px solid #999; }
  main { padding: 16px; }
  nav a { margin-right: 12px; color: #0645ad; }
  #menu-button { display: none; }
  ${
    variant === 'noPhoneMenu'
      ? ''
      : `@media (max-width: 600px) { nav { display: none; } nav.open { display: block; } #menu-button { display: inline-block; } }`
  }
  button { color: #fff; background: #1a4d8f; border: 0; padding: 6px 12px; }
</style></head>
<body>
<header>
  <img src="data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='24' height='24'/%3E" width="24" height="24"${variant === 'logoWithoutAlt' ? '' : ' alt="Ledger"'}>
  ${
    body.includes('data-signed-in')
      ? `<button id="menu-button" type="button" aria-expanded="false" aria-controls="nav">Menu</button>
  <nav id="nav" aria-label="Main"><a href="expenses">Expenses</a><a href="settings">Settings</a><a href="help" target="_blank">Receipt help</a></nav>
  <form method="post" action="sign-out"><button type="submit">Sign out</button></form>`
      : ''
  }
</header>
<main>${body}</main>
<script>
const variant = ${JSON.stringify(variant)};
const menu = document.getElementById('menu-button');
if (menu) menu.addEventListener('click', () => {
  const nav = document.getElementById('nav');
  nav.classList.toggle('open');
  menu.setAttribute('aria-expanded', String(nav.classList.contains('open')));
});
const money = (amount) => new Intl.NumberFormat(variant === 'fixedLocale' ? 'en-US' : navigator.language, { style: 'currency', currency: 'EUR' }).format(amount);
${script}
</script>
</body></html>`;

const loginPage = (variant: Variant, failed: boolean) =>
  shell(
    variant,
    'Sign in · Ledger',
    `<h1>Sign in</h1>
${failed ? '<p role="alert">Wrong email, password or one-time code.</p>' : ''}
<form method="post" action="login">
  <p><label>Email <input name="email" type="email" autocomplete="username" required></label></p>
  <p><label>Password <input name="password" type="password" autocomplete="current-password" required></label></p>
  <p><label>One-time code <input name="code" inputmode="numeric" autocomplete="one-time-code" required></label></p>
  <button type="submit">Sign in</button>
</form>`,
  );

const expensesPage = (variant: Variant) =>
  shell(
    variant,
    'Expenses · Ledger',
    `<h1 data-signed-in>Expenses</h1>
<p id="state">Loading…</p>
<ul id="expenses" aria-label="Expenses"></ul>
<p>Total: <output id="total" aria-label="Total"></output></p>
<form id="add" aria-label="Add an expense">
  <label>Description <input name="description"></label>
  <label>Amount <input name="amount" inputmode="decimal"></label>
  <button type="submit">Add expense</button>
</form>
<p id="form-error"></p>
<button type="button" id="print">Print</button>
<iframe src="widget" title="Budget widget" width="420" height="160"></iframe>`,
    `
let expenses = [];
const render = () => {
  const list = document.getElementById('expenses');
  list.replaceChildren(...expenses.map((expense) => {
    const item = document.createElement('li');
    item.dataset.testid = 'expense';
    item.textContent = expense.description + ' ' + money(expense.amount);
    return item;
  }));
  document.getElementById('total').textContent = money(expenses.reduce((sum, expense) => sum + expense.amount, 0));
};
fetch('api/expenses').then((response) => {
  if (!response.ok) throw new Error('status ' + response.status);
  return response.json();
}).then((body) => {
  expenses = body.expenses;
  document.getElementById('state').textContent = expenses.length ? '' : 'No expenses yet.';
  render();
}).catch(() => {
  if (variant !== 'silentApiError') {
    const state = document.getElementById('state');
    state.setAttribute('role', 'alert');
    state.textContent = 'Could not load expenses.';
  }
});
document.getElementById('add').addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = new FormData(event.target);
  const description = String(form.get('description')).trim();
  const amount = Number(String(form.get('amount')).replace(',', '.'));
  const error = document.getElementById('form-error');
  if (!description || !(amount > 0)) {
    error.setAttribute('role', 'alert');
    error.textContent = !description ? 'Enter a description.' : 'Enter an amount above 0.';
    return;
  }
  error.removeAttribute('role');
  error.textContent = '';
  const response = await fetch('api/expenses', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ description, amount }) });
  const created = await response.json();
  if (variant === 'staleTotal') {
    const item = document.createElement('li');
    item.dataset.testid = 'expense';
    item.textContent = created.expense.description + ' ' + money(created.expense.amount);
    document.getElementById('expenses').append(item);
  } else {
    expenses.push(created.expense);
    render();
  }
  event.target.reset();
});
document.getElementById('print').addEventListener('click', () => {
  window.open('print', 'print', 'popup,width=600,height=400');
});`,
  );

const settingsPage = (variant: Variant) =>
  shell(
    variant,
    'Settings · Ledger',
    `<h1 data-signed-in>Settings</h1>
<p><label><input type="checkbox" id="weekly"> Email me a weekly summary</label></p>`,
    `
const box = document.getElementById('weekly');
box.checked = localStorage.getItem('ledger-weekly') === 'yes';
box.addEventListener('change', () => {
  if (variant !== 'forgetfulSettings') localStorage.setItem('ledger-weekly', box.checked ? 'yes' : 'no');
});`,
  );

const helpPage = (variant: Variant) =>
  shell(variant, 'Receipt help · Ledger', '<h1>Receipt help</h1><p>Keep every receipt for ten years.</p>');

const printPage = (variant: Variant, expenses: Expense[]) =>
  shell(
    variant,
    'Print preview · Ledger',
    `<h1>Print preview</h1><ol aria-label="Printed expenses">${(variant === 'emptyPrint' ? [] : expenses)
      .map((expense) => `<li>${expense.description}</li>`)
      .join('')}</ol><button type="button" onclick="window.close()">Close</button>`,
  );

const widgetPage = (
  variant: Variant,
) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Budget</title></head>
<body><p id="budget">Budget: none</p>
<label>Monthly budget <input id="amount"></label> <button type="button" id="set">Set budget</button>
<iframe src="widget/tip" title="Tip" width="380" height="50"></iframe>
<script>
document.getElementById('set').addEventListener('click', () => {
  if (${JSON.stringify(variant)} === 'stuckWidget') return;
  document.getElementById('budget').textContent = 'Budget: ' + document.getElementById('amount').value;
});
</script></body></html>`;

const tipPage = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Tip</title></head>
<body><p>Tip: set a budget below your income.</p></body></html>`;

interface Expense {
  description: string;
  amount: number;
}

export interface LedgerApp {
  /** The base URL of a variant: `<origin>/<variant>/`. */
  url(variant: Variant): string;
  close(): Promise<void>;
}

const readBody = (request: http.IncomingMessage) =>
  new Promise<string>((resolve) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on('end', () => resolve(body));
  });

/** One server for every variant, each under its own path; a session's expenses live in memory. */
export async function startLedgerApp(): Promise<LedgerApp> {
  const sessions = new Map<string, Expense[]>();
  const server = http.createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://ledger');
    const [, variantPart = '', ...rest] = url.pathname.split('/');
    const variant = variantPart as Variant;
    const route = rest.join('/');
    if (variant !== 'correct' && !(variant in MUTANTS)) return void response.writeHead(404).end();
    const html = (body: string, status = 200) =>
      response.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(body);
    const json = (body: unknown, status = 200) =>
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const redirect = (to: string, cookie?: string) =>
      response
        .writeHead(303, { location: `/${variant}/${to}`, ...(cookie ? { 'set-cookie': cookie } : {}) })
        .end();
    const sessionId = /(?:^|;\s*)ledger=([^;]+)/.exec(request.headers.cookie ?? '')?.[1];
    const expenses = sessionId ? sessions.get(sessionId) : undefined;
    const cookiePath = `Path=/${variant}/; HttpOnly; SameSite=Lax`;

    if (route === 'widget') return html(widgetPage(variant));
    if (route === 'widget/tip') return html(tipPage);
    if (route === 'help') return html(helpPage(variant));
    if (route === '' || route === 'login') {
      if (request.method === 'POST') {
        const form = new URLSearchParams(await readBody(request));
        const ok =
          form.get('email') === LEDGER_USER.email &&
          form.get('password') === LEDGER_USER.password &&
          (variant === 'anyCode' || validCode(form.get('code') ?? ''));
        if (!ok) return html(loginPage(variant, true), 401);
        const id = randomUUID();
        sessions.set(id, [
          { description: 'Coffee', amount: 3.5 },
          { description: 'Train ticket', amount: 12 },
        ]);
        return redirect('expenses', `ledger=${id}; ${cookiePath}`);
      }
      return expenses ? redirect('expenses') : html(loginPage(variant, false));
    }
    if (!expenses || !sessionId) {
      if (route.startsWith('api/')) return json({ message: 'sign in first' }, 401);
      return redirect('login');
    }
    if (route === 'sign-out' && request.method === 'POST') {
      sessions.delete(sessionId);
      return redirect('login', `ledger=; Max-Age=0; ${cookiePath}`);
    }
    if (route === 'expenses') return html(expensesPage(variant));
    if (route === 'settings') return html(settingsPage(variant));
    if (route === 'print') return html(printPage(variant, expenses));
    if (route === 'api/expenses' && request.method === 'GET') return json({ expenses });
    if (route === 'api/expenses' && request.method === 'POST') {
      const body = JSON.parse((await readBody(request)) || '{}') as Partial<Expense>;
      if (typeof body.description !== 'string' || typeof body.amount !== 'number')
        return json({ message: 'description and amount are required' }, 400);
      const expense = { description: body.description, amount: body.amount };
      expenses.push(expense);
      return json({ expense }, 201);
    }
    return void response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: (variant) => `${origin}/${variant}/`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
