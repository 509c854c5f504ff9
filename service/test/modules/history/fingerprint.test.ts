import { describe, expect, it } from 'vitest';
import { failureSignature, fingerprintOf, stripVolatile } from '../../../src/modules/history/fingerprint.ts';

describe('failure fingerprints', () => {
  const base = { stepId: 'step-7', action: 'assertText #order-total', errorMessage: null };

  it('are equal for the same failure with other timestamps, ids and numbers', () => {
    const first = fingerprintOf({
      stepId: 'step-7',
      action: 'assertText [data-order="5f1c1b7e-93a4-4d8e-9a55-1c2f3b4d5e6f"]',
      errorMessage: 'Expected "Total: 12.50" at 2026-11-28T07:29:19Z',
    });
    const second = fingerprintOf({
      stepId: 'step-7',
      action: 'assertText [data-order="0a9b8c7d-1111-4222-8333-444455556666"]',
      errorMessage: 'Expected "Total: 99.00" at 2026-12-01T10:00:00.123Z',
    });
    expect(first).toBe(second);
    expect(
      fingerprintOf({
        stepId: null,
        action: null,
        errorMessage: 'Timed out after 5000 ms at 10:42:13 (run 1234)',
      }),
    ).toBe(
      fingerprintOf({
        stepId: null,
        action: null,
        errorMessage: 'Timed out after 30000 ms at 11:02:59 (run 98)',
      }),
    );
    expect(fingerprintOf({ ...base, action: 'assertText #row-0042 text="Order 1234"' })).toBe(
      fingerprintOf({ ...base, action: 'assertText #row-0977 text="Order 9"' }),
    );
  });

  it('differ for another step, assertion kind, negation or selector', () => {
    const reference = fingerprintOf(base);
    expect(fingerprintOf({ ...base, stepId: 'step-8' })).not.toBe(reference);
    expect(fingerprintOf({ ...base, action: 'assertVisible #order-total' })).not.toBe(reference);
    expect(fingerprintOf({ ...base, action: 'assertText not #order-total' })).not.toBe(reference);
    expect(fingerprintOf({ ...base, action: 'assertText #order-count' })).not.toBe(reference);
  });

  it('look only at the step when one failed, not at the message', () => {
    expect(fingerprintOf({ ...base, errorMessage: 'one thing' })).toBe(
      fingerprintOf({ ...base, errorMessage: 'something else entirely' }),
    );
    expect(failureSignature(base)).toBe('step|step-7|assertText|#order-total');
  });

  it('strip volatile values to placeholders', () => {
    expect(stripVolatile('id deadbeef42 at 2026-11-28 10:00 count 17 name "Ann"')).toBe(
      'id <id> at <time> count <n> name <q>',
    );
    expect(fingerprintOf(base)).toMatch(/^[0-9a-f]{16}$/);
  });
});
