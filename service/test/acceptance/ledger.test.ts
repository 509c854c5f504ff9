import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeFidelity } from './fidelity.ts';
import { ledgerStepsSuite } from './ledger/ledger.steps.ts';
import { LEDGER_TOTP_URI, MUTANTS, startLedgerApp, type Variant } from './ledger-app.ts';

/**
 * Our own acceptance suite, past what TodoMVC exercises: a sign-in with a one-time code, a mocked
 * and a failing API, a response awaited, a new tab, a popup, an iframe and a nested one, a reload,
 * back and forward, localStorage, a phone and a German browser, accessibility. Written once as
 * Playwright's docs teach (ledger/ledger.spec.ts) and once as steps (ledger/ledger.steps.ts); both
 * must give every test the same verdict on the correct app and on each broken version.
 * `LEDGER_VARIANTS=correct,anyCode` narrows a run while working on the suite.
 */
describeFidelity<Variant>({
  title: 'the Ledger suite: raw Playwright and the same tests as steps give the same verdicts',
  name: 'ledger',
  mutants: MUTANTS,
  variantsEnv: 'LEDGER_VARIANTS',
  startApp: startLedgerApp,
  spec: { dir: path.join(path.dirname(fileURLToPath(import.meta.url)), 'ledger'), file: 'ledger.spec.ts' },
  steps: ledgerStepsSuite(),
  minimumTests: 20,
  // Generous: axe over a page and its two frames takes seconds on a loaded machine; a failing
  // check still fails at its own 5 s assertion timeout, so broken versions do not wait this long.
  testTimeoutMs: 60_000,
  secrets: { LEDGER_TOTP: LEDGER_TOTP_URI },
});
