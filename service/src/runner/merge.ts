import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);

export interface MergedReports {
  jsonReportPath: string;
  htmlReportDir: string;
  durationMs: number;
}

/**
 * `playwright merge-reports` over the blob reports of an orchestrated run's batches: one
 * `test-results.json` and one HTML report, as an unsplit run writes them. The blobs were
 * redacted by each batch's executor, so the merged outputs hold no secret either.
 */
export async function mergeBlobReports(blobDir: string, outDir: string): Promise<MergedReports> {
  const started = Date.now();
  const jsonReportPath = path.join(outDir, 'test-results.json');
  const htmlReportDir = path.join(outDir, 'playwright-report');
  await fs.mkdir(outDir, { recursive: true });
  const cli = path.join(path.dirname(require.resolve('@playwright/test/package.json')), 'cli.js');
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: outDir,
    PLAYWRIGHT_JSON_OUTPUT_FILE: jsonReportPath,
    PLAYWRIGHT_HTML_OUTPUT_DIR: htmlReportDir,
    PLAYWRIGHT_HTML_OPEN: 'never',
    FORCE_COLOR: '0',
    NO_COLOR: '1',
  };
  // Each batch ran in its own folder: the merge names one test directory for all of them
  // (Playwright refuses blobs recorded under different roots otherwise).
  const mergeConfig = path.join(outDir, 'merge.config.mjs');
  await fs.writeFile(
    mergeConfig,
    `export default { testDir: ${JSON.stringify(path.join(outDir, 'tests'))} };\n`,
  );
  const output: string[] = [];
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [cli, 'merge-reports', '--config', mergeConfig, '--reporter=json,html', blobDir],
      {
        cwd: outDir,
        env,
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString('utf8')));
    child.once('error', reject);
    child.once('exit', (exitCode) => resolve(exitCode));
  });
  const written = await fs.stat(jsonReportPath).catch(() => null);
  if (code !== 0 || !written)
    throw new Error(`playwright merge-reports failed (exit ${code}): ${output.join('').slice(0, 2_000)}`);
  return { jsonReportPath, htmlReportDir, durationMs: Date.now() - started };
}
