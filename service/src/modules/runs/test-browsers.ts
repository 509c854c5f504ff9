import type { LeftOutTest, RunConfig } from '@stepdeck/contract';
import type { Db } from '../../adapters/db/index.ts';
import { appError } from '../../errors.ts';
import { browserInstalled, type PlaywrightOnlyBrowser } from '../../runner/browser-builds.ts';
import { findWorkingMany } from '../tests/public.ts';

type RunTest = { id: string; name: string };

/**
 * A run whose own config names no browser runs each test on the browser its saved config names.
 * A test saved for Firefox or WebKit whose build is absent would fail at its first step, so it
 * is caught at trigger: a run of that one test (or of nothing else) is refused with a 400
 * naming the test; a directory, tag or bulk run leaves it out with the reason and runs the rest.
 */
export async function withoutAbsentBrowsers(
  db: Db,
  scope: { projectId: string; branchId: string },
  runConfig: RunConfig | undefined,
  tests: RunTest[],
): Promise<{ tests: RunTest[]; leftOut: LeftOutTest[] }> {
  if (runConfig?.use?.browserName !== undefined) return { tests, leftOut: [] };
  const absent = (['firefox', 'webkit'] as const).filter((browser) => !browserInstalled(browser));
  if (absent.length === 0 || tests.length === 0) return { tests, leftOut: [] };
  const working = await findWorkingMany(
    db,
    scope.projectId,
    scope.branchId,
    tests.map((test) => test.id),
  );
  const browserOf = new Map<string, PlaywrightOnlyBrowser>();
  for (const test of working) {
    const browser = (test.config as RunConfig | null)?.use?.browserName;
    if (browser === 'firefox' || browser === 'webkit')
      if (absent.includes(browser)) browserOf.set(test.id, browser);
  }
  if (browserOf.size === 0) return { tests, leftOut: [] };
  const first = tests.find((test) => browserOf.has(test.id)) as RunTest;
  if (browserOf.size === tests.length)
    throw appError('BROWSER_NOT_INSTALLED', browserOf.get(first.id) as string, first.name);
  return {
    tests: tests.filter((test) => !browserOf.has(test.id)),
    leftOut: tests.flatMap((test) => {
      const browser = browserOf.get(test.id);
      return browser
        ? [
            {
              testId: test.id,
              name: test.name,
              status: 'active' as const,
              reason: 'browser not installed' as const,
              browser,
            },
          ]
        : [];
    }),
  };
}
