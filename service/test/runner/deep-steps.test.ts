import { afterAll, describe, expect, it } from 'vitest';
import { compileProject, executeProject, maxCompiledStepDepth } from '../../src/runner/index.ts';
import { group, removeTempDirs, step, tempDir, uiTest } from './fixtures.ts';

/**
 * A step tree too deep for Playwright to load (children added one by one, shared steps inside
 * groups) fails its own test with the reason; the rest of the run runs. Compiled as written,
 * such a spec made Playwright's transform run out of stack and the whole run "No tests found".
 */
describe('step trees nested too deep to compile', () => {
  afterAll(removeTempDirs);

  it('fails only the deep test, saying how deep it is and how deep a test may be', async () => {
    let deep = step('Pause', { name: 'wait', ms: 1 });
    for (let level = 0; level < 300; level += 1) deep = group(`Level ${level}`, [deep]);
    const tests = [
      uiTest('d1000000-0000-4000-8000-000000000001', 'Too deep', [deep], { type: 'api' }),
      uiTest('d2000000-0000-4000-8000-000000000002', 'Shallow', [step('Pause', { name: 'wait', ms: 1 })], {
        type: 'api',
      }),
    ];
    const result = await executeProject({
      dir: await tempDir('deep-steps'),
      project: compileProject({ tests, config: null, secretNames: [] }),
      env: {},
      signal: new AbortController().signal,
    });
    const byName = new Map(result.tests.map((test) => [test.name, test]));
    expect(byName.get('Shallow')?.status).toBe('passed');
    const tooDeep = byName.get('Too deep');
    expect(tooDeep?.status).toBe('failed');
    expect(tooDeep?.errorMessage).toContain(
      `steps nest 301 levels deep (shared steps included); at most ${maxCompiledStepDepth} can run: flatten some groups`,
    );
  }, 120_000);
});
