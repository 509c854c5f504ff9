import { describe, expect, it } from 'vitest';
import { allows, assignableRoles, mayManageUser, whoMay } from './permissions.ts';

describe('permissions', () => {
  it('lets admins and owners change what the service lets them, members run only', () => {
    expect(allows('member', 'apiKeys')).toBe(false);
    expect(allows('admin', 'apiKeys')).toBe(true);
    expect(allows('owner', 'apiKeys')).toBe(true);
    expect(allows('member', 'triggerSchedules')).toBe(true);
    expect(allows('admin', 'roles')).toBe(false);
    expect(allows('owner', 'billing')).toBe(true);
    expect(whoMay('roles')).toBe('Only owners');
    expect(whoMay('webhooks')).toBe('Only owners and admins');
  });
  it('keeps owners to owners', () => {
    expect(mayManageUser('admin', 'owner')).toBe(false);
    expect(mayManageUser('admin', 'member')).toBe(true);
    expect(mayManageUser('owner', 'owner')).toBe(true);
    expect(mayManageUser('member', 'member')).toBe(false);
    expect(assignableRoles('admin')).toEqual(['admin', 'member']);
    expect(assignableRoles('owner')).toEqual(['owner', 'admin', 'member']);
  });
});
