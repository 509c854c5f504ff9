import { resolveChromium } from '../../service/src/runner/browser.ts';
import { buildConsole, startService, startSite } from './service.ts';

/** Builds the console if needed, then starts the real service and a loopback site for the runs. */
export default async function globalSetup() {
  buildConsole();
  // The browser the tests drive is the one the service's runs use (CHROMIUM_PATH, Playwright's
  // own, the system's, or the npm package's), so a fresh machine needs nothing else.
  const browser = await resolveChromium();
  if (!browser.ok) throw new Error(browser.problem);
  process.env.STEPDECK_E2E_CHROMIUM = browser.browser.executablePath;
  const service = await startService();
  const site = await startSite();
  process.env.STEPDECK_E2E_URL = service.url;
  process.env.STEPDECK_E2E_SITE = site.url;
  process.env.STEPDECK_E2E_BOOTSTRAP = JSON.stringify(service.bootstrap);
  return async () => {
    await site.stop();
    await service.stop();
  };
}
