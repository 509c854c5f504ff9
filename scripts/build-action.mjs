// Bundles the action (and its CLI) into dist/ with ncc. dist/ is committed; .ci/run
// rebuilds it and fails when it differs.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

const ncc = 'node_modules/@vercel/ncc/dist/ncc/cli.js';
fs.rmSync('dist', { recursive: true, force: true });
for (const [entry, out] of [
  ['src/index.ts', 'dist'],
  ['src/cli.ts', 'build/cli'],
]) {
  if (!fs.existsSync(entry)) continue;
  execFileSync(
    process.execPath,
    [ncc, 'build', entry, '-o', out, '--no-source-map-register', '--license', 'licenses.txt', '-q'],
    {
      stdio: 'inherit',
    },
  );
}
// The CLI ships as a second entry beside the action bundle.
if (fs.existsSync('build/cli/index.js')) {
  fs.mkdirSync('dist/cli', { recursive: true });
  for (const file of fs.readdirSync('build/cli'))
    fs.cpSync(`build/cli/${file}`, `dist/cli/${file}`, { recursive: true });
  fs.rmSync('build/cli', { recursive: true, force: true });
}
