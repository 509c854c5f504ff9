import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

// A fixed delimiter, so a value can be made to contain it (the real one is a fresh UUID).
vi.mock('node:crypto', async (importOriginal) => ({
  ...(await importOriginal<typeof import('node:crypto')>()),
  randomUUID: () => '00000000-0000-4000-8000-000000000000',
}));
const { saveState } = await import('../src/workflow-commands.ts');
const delimiter = 'ghadelimiter_00000000-0000-4000-8000-000000000000';

describe('saveState ($GITHUB_STATE file command)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'workflow-commands-'));
  const file = path.join(dir, 'state');
  afterEach(() => fs.rmSync(file, { force: true }));

  it('writes name<<delimiter, the value and the delimiter', () => {
    saveState('runId', 'abc\nsecond line', { GITHUB_STATE: file });
    expect(fs.readFileSync(file, 'utf8')).toBe(
      `runId<<${delimiter}${os.EOL}abc\nsecond line${os.EOL}${delimiter}${os.EOL}`,
    );
  });

  it('refuses a value or name holding the delimiter, writing nothing (as @actions/core does)', () => {
    expect(() =>
      saveState('runId', `x${os.EOL}${delimiter}${os.EOL}injected=1`, { GITHUB_STATE: file }),
    ).toThrow('value should not contain the delimiter');
    expect(() => saveState(`a${delimiter}`, 'v', { GITHUB_STATE: file })).toThrow(
      'name should not contain the delimiter',
    );
    expect(fs.existsSync(file)).toBe(false);
  });
});
