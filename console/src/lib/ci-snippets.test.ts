import { describe, expect, it } from 'vitest';
import { cliLines, workflowStep } from './ci-snippets.ts';

const projectId = '3a1762a9-a5c5-4f9d-aede-9ffb0f95aa4f';
const testId = '0b8f4a52-6c1e-4f3e-9d57-2a1c7b9e0f11';

describe('CI snippets', () => {
  it('writes the action step with the secret, the project and the tests', () => {
    expect(
      workflowStep({
        baseUrl: 'http://localhost:8080',
        projectId,
        target: { kind: 'tests', ids: [testId] },
      }),
    ).toBe(
      [
        '- name: Stepdeck tests',
        '  uses: stepdeck/stepdeck@v1',
        '  with:',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the expression the step must hold
        '    api-key: ${{ secrets.STEPDECK_API_KEY }}',
        '    base-url: http://localhost:8080',
        `    project-id: ${projectId}`,
        `    test-ids: ${testId}`,
      ].join('\n'),
    );
  });

  it('names a branch only when it is not the default, and a tag instead of tests', () => {
    const step = workflowStep({
      baseUrl: 'https://stepdeck.example.com',
      projectId,
      branchId: 'b1',
      target: { kind: 'tag', id: 't1' },
    });
    expect(step).toContain('    branch-id: b1\n    tag-id: t1');
    expect(step).not.toContain('test-ids');
  });

  it('writes the CLI line with the same inputs as flags, the key in its variable', () => {
    const setup = {
      baseUrl: 'http://127.0.0.1:8080',
      projectId,
      target: { kind: 'tests', ids: ['a', 'b'] },
    } as const;
    expect(cliLines(setup)).toBe(
      [
        'export STEPDECK_API_KEY=sd_...',
        `npx github:stepdeck/stepdeck run --base-url http://127.0.0.1:8080 --project-id ${projectId} --test-ids a,b --wait`,
      ].join('\n'),
    );
    expect(cliLines(setup, "sd_it's")).toMatch(/^export STEPDECK_API_KEY='sd_it'\\''s'\n/);
  });
});
