/**
 * The merge process of this host (see merge.ts): `node merge-server-main.ts <idle ms>`, forked
 * with an IPC channel. It loads Playwright once and then runs what `playwright merge-reports
 * --config <file> --reporter=json,html <dir>` runs, for each request, one at a time; loading
 * Playwright is most of a one-off merge's cost (about 1 s of CPU, against 0.2 s for merging
 * 100 tests). It exits when its parent goes (the channel closes) or after `idle ms` unused.
 */
import { createRequire } from 'node:module';

export interface MergeRequest {
  id: number;
  configFile: string;
  blobDir: string;
  jsonReportPath: string;
  htmlReportDir: string;
}

export type MergeReply = { id: number; ok: true } | { id: number; ok: false; error: string };

interface PlaywrightInternals {
  configLoader: { loadConfigFromFile(file: string): Promise<{ config: { rootDir: string } }> };
  merge: {
    createMergedReport(
      config: unknown,
      dir: string,
      reporters: Array<[string]>,
      rootDirOverride: string,
    ): Promise<unknown>;
  };
}

const idleMs = Number(process.argv[2]) || 60_000;
const require = createRequire(import.meta.url);
const playwright = createRequire(require.resolve('@playwright/test/package.json'));
// The same entry points as Playwright's own `merge-reports` command (lib/cli/reportActions.js).
const { configLoader } = playwright('playwright/lib/common') as Pick<PlaywrightInternals, 'configLoader'>;
const { merge } = playwright('playwright/lib/runner') as Pick<PlaywrightInternals, 'merge'>;

let idle: NodeJS.Timeout | undefined = setTimeout(() => process.exit(0), idleMs);
let queue = Promise.resolve();
let pending = 0;

async function handle(request: MergeRequest): Promise<MergeReply> {
  // The reporters read their outputs from the environment, as with the command.
  process.env.PLAYWRIGHT_JSON_OUTPUT_FILE = request.jsonReportPath;
  process.env.PLAYWRIGHT_HTML_OUTPUT_DIR = request.htmlReportDir;
  process.env.PLAYWRIGHT_HTML_OPEN = 'never';
  try {
    const config = await configLoader.loadConfigFromFile(request.configFile);
    await merge.createMergedReport(config, request.blobDir, [['json'], ['html']], config.config.rootDir);
    return { id: request.id, ok: true };
  } catch (error) {
    return { id: request.id, ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

process.on('message', (request: MergeRequest) => {
  clearTimeout(idle);
  pending += 1;
  queue = queue.then(async () => {
    const reply = await handle(request);
    process.send?.(reply);
    pending -= 1;
    if (pending === 0) idle = setTimeout(() => process.exit(0), idleMs);
  });
});
process.on('disconnect', () => process.exit(0));
process.send?.({ ready: true });
