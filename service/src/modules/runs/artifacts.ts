import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import * as tar from 'tar';
import type { AppContext } from '../../context.ts';
import { createRedactor } from '../../runner/redact.ts';
import type { ExecutionResult } from './deps.ts';
import type { RunRow } from './repository.ts';

/** Blob key of a run artifact. */
export const artifactKey = (runId: string, name: string) => `runs/${runId}/${name}`;

/** A test name as one safe path segment of a blob key. */
export function testFolder(name: string): string {
  const cleaned = Array.from(name, (char) =>
    char === '/' || char === '\\' || char.charCodeAt(0) < 32 ? '_' : char,
  )
    .join('')
    .trim();
  return cleaned === '' || cleaned === '.' || cleaned === '..' ? '_' : cleaned;
}

/**
 * Stores the run's artifacts. The executor has already rewritten its output files without the
 * secret values (traces and the HTML report included, see runner/redact.ts); the log and the
 * JSON report pass through the same redactor once more as text.
 */
export async function uploadArtifacts(
  ctx: AppContext,
  run: RunRow,
  result: ExecutionResult,
  secrets: Record<string, string>,
): Promise<void> {
  const redactor = createRedactor(Object.values(secrets));
  const put = async (name: string, file: string) => {
    if (fs.existsSync(file) && fs.statSync(file).isFile())
      await ctx.blobs.put(artifactKey(run.id, name), fs.createReadStream(file));
  };
  // Independent uploads, done side by side.
  const uploads: Array<Promise<void>> = [
    ctx.blobs.put(artifactKey(run.id, 'test-run.log'), Buffer.from(redactor.text(result.log ?? ''))),
  ];
  const jsonReportPath = result.jsonReportPath;
  if (jsonReportPath && fs.existsSync(jsonReportPath)) {
    uploads.push(
      (async () => {
        const json = await fsp.readFile(jsonReportPath, 'utf8');
        await ctx.blobs.put(artifactKey(run.id, 'test-results.json'), Buffer.from(redactor.text(json)));
      })(),
    );
  }
  const htmlReportDir = result.htmlReportDir;
  if (htmlReportDir && fs.existsSync(htmlReportDir)) {
    uploads.push(
      (async () => {
        const archive = path.join(path.dirname(htmlReportDir), 'playwright-report.tar.gz');
        await tar.c({ gzip: true, cwd: htmlReportDir, file: archive, portable: true }, ['.']);
        await put('playwright-report.tar.gz', archive);
      })(),
    );
  }
  uploads.push(uploadTestArtifacts(ctx, run.id, result.tests));
  await Promise.all(uploads);
}

/** Each test's own files (screenshots, traces, videos) under `tests/<name>/`. */
export async function uploadTestArtifacts(
  ctx: AppContext,
  runId: string,
  tests: ExecutionResult['tests'],
): Promise<void> {
  const uploads: Array<Promise<void>> = [];
  for (const test of tests) {
    for (const artifact of test.artifacts) {
      const file = path.basename(artifact.file || artifact.path);
      if (fs.existsSync(artifact.path) && fs.statSync(artifact.path).isFile())
        uploads.push(
          ctx.blobs.put(
            artifactKey(runId, `tests/${testFolder(test.name)}/${file}`),
            fs.createReadStream(artifact.path),
          ),
        );
    }
  }
  await Promise.all(uploads);
}
