/**
 * `npm run bench`: runs every benchmark in this folder (every `*.ts` but this file), one after
 * another so they do not compete for the CPU, and exits non-zero if any of them failed.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const self = fileURLToPath(import.meta.url);
const folder = path.dirname(self);
const benchmarks = fs
  .readdirSync(folder)
  .filter((name) => name.endsWith('.ts') && !name.endsWith('.d.ts') && path.join(folder, name) !== self)
  .sort();

const failed: string[] = [];
for (const name of benchmarks) {
  process.stdout.write(`\n=== ${name} ===\n`);
  const started = Date.now();
  const result = spawnSync(process.execPath, [path.join(folder, name)], {
    stdio: 'inherit',
    cwd: path.dirname(folder),
  });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (result.status !== 0) {
    failed.push(name);
    process.stdout.write(
      `=== ${name}: FAILED (exit ${result.status ?? result.signal}) after ${seconds}s ===\n`,
    );
  } else {
    process.stdout.write(`=== ${name}: done in ${seconds}s ===\n`);
  }
}

if (failed.length > 0) {
  process.stderr.write(`\nBenchmarks failed: ${failed.join(', ')}\n`);
  process.exit(1);
}
process.stdout.write(`\nAll ${benchmarks.length} benchmarks ran: ${benchmarks.join(', ')}\n`);
