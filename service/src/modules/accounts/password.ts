import type { Db } from '../../adapters/db/index.ts';
import { appError } from '../../errors.ts';
import type { UserPrincipal } from '../../plugins/auth/credentials.ts';
import { hashPassword, hashToken, verifyPassword } from '../../plugins/auth/secrets.ts';
import { findPasswordHash, replacePassword } from './accounts-repository.ts';

/**
 * A signed-in user changes their own password: the one an admin handed them when adding them
 * (shown once), or the bootstrap's. The current password is asked again, so a session left open
 * on someone else's screen cannot take the account; every other session of the user ends, so a
 * password that leaked stops working everywhere at once.
 */
export async function changeOwnPassword(
  db: Db,
  user: UserPrincipal,
  change: { currentPassword: string; newPassword: string; sessionToken: string },
): Promise<void> {
  const row = await findPasswordHash(db, user.userId);
  if (!row) throw appError('SESSION_REQUIRED');
  if (!(await verifyPassword(change.currentPassword, row.passwordHash)))
    throw appError('WRONG_CURRENT_PASSWORD');
  if (change.newPassword === change.currentPassword) throw appError('PASSWORD_UNCHANGED');
  const passwordHash = await hashPassword(change.newPassword);
  await replacePassword(db, user.userId, passwordHash, hashToken(change.sessionToken));
}
