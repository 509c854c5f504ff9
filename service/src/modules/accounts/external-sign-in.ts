import type { Db } from '../../adapters/db/index.ts';
import { transaction } from '../../adapters/db/locks.ts';
import { appError } from '../../errors.ts';
import { hashToken, newPassword, newSessionToken } from '../../plugins/auth/secrets.ts';
import {
  deleteSession,
  findMember,
  findUserForSignIn,
  insertSession,
  lockOwners,
  ownerCount,
  updateRole,
} from './accounts-repository.ts';
import { organizationStanding, revokeKeysCreatedBy } from './install-repository.ts';
import { insertUser } from './repository.ts';

export type MemberRole = 'owner' | 'admin' | 'member';

/** How long a console session lasts, whichever way it was opened. */
export const sessionLifetimeMs = 12 * 60 * 60 * 1000;

const rank: Record<MemberRole, number> = { member: 0, admin: 1, owner: 2 };

/**
 * A check another module adds to the password sign-in, run once the password is known to be
 * right (so its answer tells a guesser nothing): single sign-on refuses members of an
 * organization that requires it. Throws an app error to refuse.
 */
export type PasswordSignInGuard = (user: {
  userId: string;
  email: string;
  organizationId: string;
}) => Promise<void>;

/** The member behind an email in one organization (undefined when none, or elsewhere). */
export async function memberByEmail(db: Db, organizationId: string, email: string) {
  const user = await findUserForSignIn(db, email.trim().toLowerCase());
  if (!user || user.organizationId !== organizationId) return undefined;
  return { id: user.id, email: user.email, role: user.role };
}

export async function memberById(db: Db, organizationId: string, userId: string) {
  return findMember(db, organizationId, userId);
}

/**
 * The account an identity provider vouched for, created on first sign-in or given the role its
 * groups map to on every later one. The last owner is never demoted this way (the organization
 * would have nobody to run it); a demotion revokes the keys the user created, as a demotion in
 * the console does. An email used by another organization's account is refused.
 */
export async function provisionExternalMember(
  db: Db,
  input: { organizationId: string; email: string; role: MemberRole; now: Date },
) {
  const email = input.email.trim().toLowerCase();
  const standing = await organizationStanding(db, input.organizationId);
  if (!standing) throw appError('ORGANIZATION_NOT_FOUND');
  if (standing.suspended) throw appError('ORGANIZATION_SUSPENDED');
  return transaction(db, async (trx) => {
    await lockOwners(trx, input.organizationId);
    const existing = await findUserForSignIn(trx, email);
    if (existing && existing.organizationId !== input.organizationId) throw appError('SSO_ACCOUNT_ELSEWHERE');
    if (!existing) {
      // Nobody knows this password: the account signs in through its provider.
      const userId = await insertUser(
        trx,
        { organizationId: input.organizationId, email, password: newPassword(), role: input.role },
        input.now.toISOString(),
      );
      return { userId, email, role: input.role, previousRole: null, keysRevoked: 0 };
    }
    let role = input.role;
    if (existing.role === 'owner' && role !== 'owner' && (await ownerCount(trx, input.organizationId)) <= 1)
      role = 'owner';
    let keysRevoked = 0;
    if (role !== existing.role) {
      await updateRole(trx, existing.id, role);
      if (rank[role] < rank[existing.role])
        keysRevoked = await revokeKeysCreatedBy(trx, existing.id, input.now.toISOString());
    }
    return { userId: existing.id, email, role, previousRole: existing.role, keysRevoked };
  });
}

/** Opens a console session for the user: the same token and lifetime as a password sign-in. */
export async function openSession(db: Db, userId: string, now: Date) {
  const token = newSessionToken();
  await insertSession(db, {
    tokenHash: hashToken(token),
    userId,
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + sessionLifetimeMs).toISOString(),
  });
  return { token, maxAgeSeconds: sessionLifetimeMs / 1000 };
}

export async function endSession(db: Db, token: string) {
  await deleteSession(db, hashToken(token));
}
