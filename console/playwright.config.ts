import { defineConfig } from '@playwright/test';
// The runner's own headless flags: the console is tested in the browser runs use.
import { CHROMIUM_ARGS } from '../service/src/runner/compiler/constants.ts';

/**
 * The console against the real service (started by e2e/global-setup.ts on a free port with a
 * temporary DATA_DIR) in the Chromium the service resolves for its runs (Debian's here). One worker: the service runs real Playwright runs
 * of its own, and CI has 2 cores.
 */
export default defineConfig({
  testDir: 'e2e',
  testMatch: '**/*.spec.ts',
  globalSetup: './e2e/global-setup.ts',
  workers: 1,
  fullyParallel: false,
  timeout: 120_000,
  expect: { timeout: 15_000 },
  reporter: process.env.CI ? [['list']] : [['list']],
  outputDir: 'test-results',
  use: {
    baseURL: process.env.STEPDECK_E2E_URL,
    trace: 'retain-on-failure',
    launchOptions: {
      // Set by e2e/global-setup.ts, which runs before any worker starts.
      executablePath: process.env.STEPDECK_E2E_CHROMIUM ?? process.env.CHROMIUM_PATH,
      args: CHROMIUM_ARGS,
    },
  },
});
