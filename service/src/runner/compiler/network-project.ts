import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { NETWORK_RUNTIMES } from './actions/network.ts';

const require = createRequire(import.meta.url);
const sources = new Map<string, string>();

/** The version of `name` the runner has (what its tests ran against), for the project's package.json. */
function installedVersion(name: string): string {
  // Looked up beside the resolver's node_modules folders: `otpauth` does not export its package.json.
  for (const dir of require.resolve.paths(name) ?? []) {
    const manifest = path.join(dir, name, 'package.json');
    if (existsSync(manifest))
      return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
  }
  return 'latest';
}

/**
 * The runtime files of the network, TOTP and accessibility steps the project's tests use, and
 * the npm packages they import at the runner's versions (`otpauth`, `axe-core`).
 */
export function networkProjectFiles(uses: (names: Set<string>) => boolean): {
  files: Map<string, string>;
  dependencies: Record<string, string>;
} {
  const files = new Map<string, string>();
  const dependencies: Record<string, string> = {};
  for (const runtime of NETWORK_RUNTIMES) {
    if (!uses(new Set(runtime.actions))) continue;
    let source = sources.get(runtime.file);
    if (source === undefined) {
      source = readFileSync(new URL(`./runtime/${runtime.file}`, import.meta.url), 'utf8');
      sources.set(runtime.file, source);
    }
    files.set(runtime.file, source);
    for (const name of runtime.packages) dependencies[name] = installedVersion(name);
  }
  return { files, dependencies };
}
