import { z } from 'zod';
import {
  type BrowserEnvironment,
  browserEnvironmentFields,
  browserEnvironmentOf,
} from './browser-environment.ts';

/** The spec's "Run configuration": accepted by create, update and remote-run. */
export const runConfig = z
  .object({
    use: z
      .object({
        browserName: z.enum(['chromium', 'webkit', 'firefox']).optional(),
        baseURL: z.string().optional(),
        trace: z.enum(['off', 'on', 'retain-on-failure', 'on-first-retry']).optional(),
        video: z.enum(['off', 'on', 'retain-on-failure', 'on-first-retry']).optional(),
        screenshot: z.enum(['off', 'on', 'only-on-failure']).optional(),
        actionTimeout: z.number().int().min(0).max(3_600_000).optional(),
        navigationTimeout: z.number().int().min(0).max(3_600_000).optional(),
        headless: z.boolean().optional(),
      })
      .loose()
      .optional(),
    retries: z.number().int().min(0).max(10).optional(),
    timeout: z.number().int().min(0).max(7_200_000).optional(),
    workers: z.number().int().min(1).max(64).optional(),
    repeatEach: z.number().int().min(1).max(100).optional(),
    /**
     * A step whose locator finds nothing (or several): `suggest` (default) records the page's
     * closest elements, `retry` also runs the step once more with the best one (the result
     * says healed), `off` neither. Additive.
     */
    heal: z.enum(['off', 'suggest', 'retry']).optional(),
    viewport: z
      .object({
        width: z.number().int().min(1).max(10_000).optional(),
        height: z.number().int().min(1).max(10_000).optional(),
      })
      .optional(),
    /** The browser context: device preset, locale, time zone... (browser-environment.ts; additive). */
    ...browserEnvironmentFields,
  })
  .loose();
export type RunConfig = z.infer<typeof runConfig>;

export type HealMode = NonNullable<RunConfig['heal']>;

/** A test's `heal` after layering (last layer wins), `suggest` when none sets it. */
export function healMode(...layers: Array<RunConfig | null | undefined>): HealMode {
  let mode: HealMode = 'suggest';
  for (const layer of layers) if (layer?.heal) mode = layer.heal;
  return mode;
}

/** Every field filled with the spec's defaults. */
export interface ResolvedRunConfig {
  use: {
    browserName: 'chromium' | 'webkit' | 'firefox';
    baseURL: string | undefined;
    trace: 'off' | 'on' | 'retain-on-failure' | 'on-first-retry';
    video: 'off' | 'on' | 'retain-on-failure' | 'on-first-retry';
    screenshot: 'off' | 'on' | 'only-on-failure';
    actionTimeout: number;
    navigationTimeout: number;
    headless: true;
  };
  retries: number;
  timeout: number;
  workers: number;
  repeatEach: number;
  viewport: { width: number; height: number };
  /**
   * Whether a layer set the viewport: with a `device`, the device's own viewport applies
   * unless one did (additive).
   */
  viewportSet: boolean;
  /** Device, locale, time zone, geolocation... as the layers set them (additive). */
  environment: BrowserEnvironment;
}

/** Layers configs left to right (test config, then run overrides); runs are always headless. */
export function resolveRunConfig(...layers: Array<RunConfig | null | undefined>): ResolvedRunConfig {
  const merged: RunConfig = {};
  for (const layer of layers) {
    if (!layer) continue;
    Object.assign(merged, layer, {
      use: { ...merged.use, ...layer.use },
      viewport: { ...merged.viewport, ...layer.viewport },
    });
  }
  const use = merged.use ?? {};
  return {
    use: {
      browserName: use.browserName ?? 'chromium',
      baseURL: use.baseURL,
      trace: use.trace ?? 'retain-on-failure',
      video: use.video ?? 'off',
      screenshot: use.screenshot ?? 'only-on-failure',
      actionTimeout: use.actionTimeout ?? 0,
      navigationTimeout: use.navigationTimeout ?? 0,
      headless: true,
    },
    retries: merged.retries ?? 0,
    timeout: merged.timeout ?? 30_000,
    workers: merged.workers ?? 1,
    repeatEach: merged.repeatEach ?? 1,
    viewport: { width: merged.viewport?.width ?? 1920, height: merged.viewport?.height ?? 1080 },
    viewportSet: merged.viewport?.width !== undefined || merged.viewport?.height !== undefined,
    environment: browserEnvironmentOf(merged),
  };
}
