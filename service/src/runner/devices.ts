import { createRequire } from 'node:module';

/**
 * Playwright's device registry, as the `@playwright/test` the runs use knows it (its
 * `playwright-core`), so a name the service accepts is one `devices[...]` in the generated
 * config finds. Only Chromium devices run: the runner's browser is Chromium.
 */

interface DeviceDescriptor {
  defaultBrowserType: 'chromium' | 'firefox' | 'webkit';
  viewport: { width: number; height: number };
}

let registry: Record<string, DeviceDescriptor> | undefined;
function devices(): Record<string, DeviceDescriptor> {
  if (!registry) {
    const fromTest = createRequire(createRequire(import.meta.url).resolve('@playwright/test/package.json'));
    registry = (fromTest('playwright-core') as { devices: Record<string, DeviceDescriptor> }).devices;
  }
  return registry;
}

/** Why a run config's `device` cannot run here, or null when it can. */
export function deviceProblem(name: string): string | null {
  const device = devices()[name];
  if (!device)
    return `device "${name}" is not a known device; e.g. "Pixel 7", "Galaxy S9+", "Desktop Chrome"`;
  if (device.defaultBrowserType !== 'chromium')
    return `device "${name}" runs in ${device.defaultBrowserType}, which this service does not run; choose a Chromium device, e.g. "Pixel 7", "Galaxy S9+", "Desktop Chrome"`;
  return null;
}

/** The Chromium devices of the registry, by name (landscape variants included). */
export function chromiumDeviceNames(): string[] {
  return Object.entries(devices())
    .filter(([, device]) => device.defaultBrowserType === 'chromium')
    .map(([name]) => name);
}

/** The viewport a device of the registry brings, or null for a name it does not know. */
export function deviceViewport(name: string): { width: number; height: number } | null {
  const viewport = devices()[name]?.viewport;
  return viewport ? { width: viewport.width, height: viewport.height } : null;
}
