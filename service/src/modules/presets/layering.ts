import type { RunConfig } from '@stepdeck/contract';

/** The preset first, the run's own config over it (`use` and `viewport` merged field by field). */
export function layerOverPreset(preset: RunConfig, own: RunConfig | undefined): RunConfig {
  if (!own) return preset;
  return {
    ...preset,
    ...own,
    ...(preset.use || own.use ? { use: { ...preset.use, ...own.use } } : {}),
    ...(preset.viewport || own.viewport ? { viewport: { ...preset.viewport, ...own.viewport } } : {}),
  };
}
