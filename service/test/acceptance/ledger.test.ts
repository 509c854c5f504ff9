import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveChromium } from '../../src/runner/browser.ts';
import { removeTempDirs, tempDir } from '../runner/fixtures.ts';
import {
  catching,
  differences,
  failingOnCorrect,
  runOnStepdeck,
  runRawPlaywright,
  type Verdicts,
} from './fidelity.ts';
import { ledgerStepsSuite } from './ledger/ledger.steps.ts';
import { LEDGER_TOTP_URI, type LedgerApp, MUTANTS, startLedgerApp, type Variant } from './ledger-app.ts';

/**
 * Our own acceptance suite, past what TodoMVC exercises: a sign-in with a one-time code, a mocked
 * and a failing API, a response awaited, a new tab, a popup, an iframe and a nested one, a reload,
 * back and forward, localStorage, a phone and a German browser, accessibility. Written once as
 * Playwright's docs teach (ledger/ledger.spec.ts) and once as steps (ledger/ledger.steps.ts); both
 * must give every test the same verdict on the correct app and on each broken version.
 */
// All of them; `LEDGER_VARIANTS=correct,anyCode` narrows a run while working on the suite.
const variants: Variant[] = process.env.LEDGER_VARIANTS
  ? (process.env.LEDGER_VARIANTS.split(',') as Variant[])
  : ['correct', ...(Object.keys(MUTANTS) as Variant[])];
const here = path.dirname(fileURLToPath(import.meta.url));
// Generous: axe over a page and its two frames takes seconds on a loaded machine; a failing check
// still fails at its own 5 s assertion timeout, so broken versions do not wait this long.
const testTimeoutMs = 60_000;
const suite = ledgerStepsSuite();

describe('the Ledger suite: raw Playwright and the same tests as steps give the same verdicts', () => {
  let app: LedgerApp;
  let raw: Verdicts;
  let steps: Verdicts;
  beforeAll(async () => {
    const resolved = await resolveChromium();
    if (!resolved.ok) throw new Error(resolved.problem);
    app = await startLedgerApp();
    const chromium = resolved.browser.executablePath;
    const sides = {
      variants,
      baseURL: (variant: string) => app.url(variant as Variant),
      chromium,
      timeoutMs: testTimeoutMs,
    };
    raw = await runRawPlaywright({
      ...sides,
      testDir: path.join(here, 'ledger'),
      testMatch: 'ledger.spec.ts',
      dir: await tempDir('ledger-raw'),
    });
    steps = await runOnStepdeck({
      ...sides,
      suite,
      secrets: { LEDGER_TOTP: LEDGER_TOTP_URI },
      dir: await tempDir('ledger-steps'),
    });
  }, 1_500_000);
  afterAll(async () => {
    await app?.close();
    await removeTempDirs();
  });

  it(`runs all ${suite.length} tests on each version of the app, on both sides`, () => {
    expect(suite.length).toBeGreaterThanOrEqual(20);
    expect(raw.size).toBe(suite.length * variants.length);
    expect([...steps.keys()].sort()).toEqual([...raw.keys()].sort());
  });

  it('passes every test on the correct app, on both sides', () => {
    expect(failingOnCorrect(raw)).toEqual([]);
    expect(failingOnCorrect(steps)).toEqual([]);
  });

  it('gives every test the same verdict as raw Playwright on every broken version', () => {
    expect(differences(raw, steps)).toEqual([]);
  });

  it('catches each broken version on both sides', () => {
    for (const mutant of variants.filter((variant) => variant !== 'correct')) {
      const why = `${mutant}: ${MUTANTS[mutant as keyof typeof MUTANTS]}`;
      expect(catching(raw, mutant).length, why).toBeGreaterThan(0);
      expect(catching(steps, mutant).length, why).toBeGreaterThan(0);
    }
  });
});
