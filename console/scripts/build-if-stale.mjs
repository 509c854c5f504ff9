// Builds the console when console/dist is missing or older than its sources, so `npm start`
// on a fresh clone serves a working console with no extra command. `--check` only reports
// (exit 1 when stale), for CI. The fingerprint covers the console's sources and the contract
// it imports.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const consoleDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const inputs = ['src', 'index.html', 'vite.config.ts', 'package.json', '../contract/src'];
const stampFile = path.join(consoleDir, 'dist', '.source-hash');

function* files(entry) {
  const full = path.join(consoleDir, entry);
  if (!fs.existsSync(full)) return;
  if (fs.statSync(full).isFile()) {
    yield entry;
    return;
  }
  for (const name of fs.readdirSync(full).sort()) yield* files(path.join(entry, name));
}

export function sourceHash() {
  const hash = createHash('sha256');
  for (const input of inputs) {
    for (const file of files(input)) {
      hash.update(file.replaceAll('\\', '/'));
      hash.update(fs.readFileSync(path.join(consoleDir, file)));
    }
  }
  return hash.digest('hex');
}

const wanted = sourceHash();
const have = fs.existsSync(stampFile) ? fs.readFileSync(stampFile, 'utf8').trim() : '';
const fresh = have === wanted && fs.existsSync(path.join(consoleDir, 'dist', 'index.html'));
if (process.argv.includes('--check')) {
  if (!fresh) {
    process.stderr.write('console/dist is missing or stale: run `npm run build`\n');
    process.exit(1);
  }
} else if (!fresh || process.argv.includes('--force')) {
  process.stdout.write('Building the web console (console/dist)…\n');
  const vite = path.join(consoleDir, 'node_modules', '.bin', 'vite');
  const bin = fs.existsSync(vite) ? vite : path.join(consoleDir, '..', 'node_modules', '.bin', 'vite');
  execFileSync(bin, ['build', '--logLevel', 'warn'], { cwd: consoleDir, stdio: 'inherit' });
  fs.writeFileSync(stampFile, `${wanted}\n`);
}
