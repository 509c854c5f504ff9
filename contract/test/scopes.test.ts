import { describe, expect, it } from 'vitest';
import { allScopes, scope } from '../src/index.ts';

describe('scopes', () => {
  it('lists the thirteen scopes of the spec and rejects others by name', () => {
    expect(allScopes).toHaveLength(13);
    expect(scope.parse('tests:run')).toBe('tests:run');
    const result = scope.safeParse('tests:fly');
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toContain('tests:read');
  });
});
