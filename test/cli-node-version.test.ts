import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureDist, root } from './e2e/harness.ts';

/** A Node older than 24 on this machine (STEPDECK_TEST_OLD_NODE, else /usr/bin/node when it is one). */
function oldNode(): { node: string; version: string } | undefined {
  for (const node of [process.env.STEPDECK_TEST_OLD_NODE, '/usr/bin/node']) {
    if (!node || !fs.existsSync(node)) continue;
    const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
    if (Number(version.slice(1).split('.')[0]) < 24) return { node, version };
  }
  return undefined;
}

describe('the CLI bundle on a Node older than 24', () => {
  it('says in one line which Node it needs and exits 2, even for --help', () => {
    ensureDist();
    const bin = path.join(root, 'dist/cli/index.js');
    const found = oldNode();
    // Without an old Node here, this Node poses as v20 (a preload rewriting process.version):
    // that proves the check comes first, the real old Node also that the bundle loads that far.
    const preload = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-node-')), 'v20.mjs');
    fs.writeFileSync(
      preload,
      "Object.defineProperty(process.versions, 'node', { value: '20.11.1' });\n" +
        "Object.defineProperty(process, 'version', { value: 'v20.11.1' });\n",
    );
    const [node, args, version] = found
      ? [found.node, [bin, 'run', '--help'], found.version]
      : [process.execPath, ['--import', preload, bin, 'run', '--help'], 'v20.11.1'];
    const result = spawnSync(node, args, { encoding: 'utf8' });
    expect(result.stderr).toBe(`stepdeck needs Node 24 or newer; this is Node ${version}\n`);
    expect(result.stdout).toBe('');
    expect(result.status).toBe(2);
  });
});
