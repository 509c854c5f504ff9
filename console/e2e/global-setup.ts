import { buildConsole, startService, startSite } from './service.ts';

/** Builds the console if needed, then starts the real service and a loopback site for the runs. */
export default async function globalSetup() {
  buildConsole();
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
