import { describe, expect, it } from 'vitest';
import { leftOutLine } from '../src/trigger.ts';

describe('the line the action and CLI print for the tests a run left out', () => {
  it('names drafts and archived tests by status', () => {
    expect(
      leftOutLine('1a2b3c4d-0000-4000-8000-000000000000', [
        { testId: 't1', name: 'Login', status: 'draft' },
        { testId: 't2', name: 'Old flow', status: 'archived' },
      ]),
    ).toBe(
      'Run 1a2b3c4d left out 2 tests that are not active: Login (draft), Old flow (archived). Mark a test active in the console to include it.',
    );
  });

  it('names a test left out because its browser is not installed, and the step that installs it', () => {
    expect(
      leftOutLine('1a2b3c4d-0000-4000-8000-000000000000', [
        { testId: 't1', name: 'Login', status: 'draft' },
        {
          testId: 't3',
          name: 'Checkout',
          status: 'active',
          reason: 'browser not installed',
          browser: 'firefox',
        },
      ]),
    ).toBe(
      'Run 1a2b3c4d left out 2 tests: Login (draft), Checkout (firefox not installed). Mark a test active in the console to include it; install a browser with npx playwright install <browser> where the service runs.',
    );
  });
});
