import { randomUUID } from 'node:crypto';
import type { Scope } from '@stepdeck/contract';
import type { Db } from '../../adapters/db/index.ts';
import { type Clock, isoNow } from '../../clock.ts';
import { appError } from '../../errors.ts';
import type { UserPrincipal } from '../../plugins/auth/credentials.ts';
import { hashPassword, hashToken, newSessionToken, verifyPassword } from '../../plugins/auth/secrets.ts';
import {
  branchExistsInProject,
  deleteApiKeyOf,
  deleteSession,
  deleteTagOf,
  findUserForSignIn,
  getOrganization,
  insertBranch,
  insertSession,
  insertTag,
  installOrganizationId,
  listBranchesOf,
  listProjectsOf,
  listTagsOf,
  listUsersOf,
  revokeApiKeyOf,
} from './accounts-repository.ts';
import type { PasswordSignInGuard } from './external-sign-in.ts';
import {
  defaultConcurrencyCap,
  findProject,
  insertApiKey,
  insertProject,
  insertUser,
  listApiKeys,
} from './repository.ts';

const sessionLifetimeMs = 12 * 60 * 60 * 1000;

/**
 * A hash checked when the email is unknown, so that answer costs the same scrypt as a wrong
 * password and timing tells nobody which emails exist.
 */
let unknownUserHash: Promise<string> | undefined;
const decoyHash = () => {
  unknownUserHash ??= hashPassword(newSessionToken());
  return unknownUserHash;
};

const isUniqueViolation = (error: unknown) =>
  /unique|duplicate key/i.test(String((error as { message?: string }).message ?? ''));

/** Console operations for the self-hosted install: sessions, keys, projects, tags, users. */
export class ConsoleService {
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly signInGuards: readonly PasswordSignInGuard[];

  constructor(options: { db: Db; clock: Clock; signInGuards?: readonly PasswordSignInGuard[] }) {
    this.db = options.db;
    this.clock = options.clock;
    this.signInGuards = options.signInGuards ?? [];
  }

  async signIn(email: string, password: string) {
    const user = await findUserForSignIn(this.db, email.toLowerCase());
    const matches = await verifyPassword(password, user?.passwordHash ?? (await decoyHash()));
    if (!user || !matches) {
      throw appError('INVALID_CREDENTIALS');
    }
    // Told only to whoever knows the password: it reveals nothing to a guesser.
    if (user.suspendedAt !== null && user.installAdminId === null) throw appError('ORGANIZATION_SUSPENDED');
    for (const guard of this.signInGuards)
      await guard({ userId: user.id, email: user.email, organizationId: user.organizationId });
    const token = newSessionToken();
    const now = this.clock.now();
    await insertSession(this.db, {
      tokenHash: hashToken(token),
      userId: user.id,
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + sessionLifetimeMs).toISOString(),
    });
    return {
      token,
      maxAgeSeconds: sessionLifetimeMs / 1000,
      user: {
        id: user.id,
        email: user.email,
        role: user.role,
        organizationId: user.organizationId,
        installAdmin: user.installAdminId !== null,
      },
    };
  }

  /**
   * Whom a failed sign-in names in the audit log: the account tried, in its organization; an
   * email nobody uses goes to the install's own organization (the install admins read it).
   */
  async signInSubject(email: string) {
    const normalized = email.trim().toLowerCase().slice(0, 320);
    const user = await findUserForSignIn(this.db, normalized);
    if (user) return { userId: user.id, email: user.email, organizationId: user.organizationId };
    const installOrganization = await installOrganizationId(this.db);
    return installOrganization
      ? { userId: '', email: normalized, organizationId: installOrganization }
      : undefined;
  }

  async signOut(token: string) {
    await deleteSession(this.db, hashToken(token));
  }

  async createApiKey(user: UserPrincipal, name: string, scopes: Scope[]) {
    if (scopes.length === 0) throw appError('API_KEY_SCOPES_REQUIRED');
    const unique = [...new Set(scopes)];
    return insertApiKey(
      this.db,
      {
        organizationId: user.organizationId,
        name,
        scopes: unique,
        createdByUserId: user.userId,
        createdByEmail: user.email,
      },
      isoNow(this.clock),
    );
  }

  async listApiKeys(user: UserPrincipal) {
    return (await listApiKeys(this.db, user.organizationId)).map((key) => ({
      id: key.id,
      name: key.name,
      prefix: key.prefix,
      scopes: key.scopes,
      revoked: key.revokedAt !== null,
      revokedAt: key.revokedAt,
      createdAt: key.createdAt,
      lastUsedAt: key.lastUsedAt,
      createdBy:
        key.createdByUserId === null && key.createdByEmail === null
          ? null
          : { userId: key.createdByUserId, email: key.createdByEmail },
    }));
  }

  async revokeApiKey(user: UserPrincipal, id: string) {
    if (!(await revokeApiKeyOf(this.db, user.organizationId, id, isoNow(this.clock))))
      throw appError('API_KEY_NOT_FOUND');
  }

  async deleteApiKey(user: UserPrincipal, id: string) {
    if (!(await deleteApiKeyOf(this.db, user.organizationId, id))) throw appError('API_KEY_NOT_FOUND');
  }

  async createProject(user: UserPrincipal, name: string) {
    const now = isoNow(this.clock);
    const ids = await this.db
      .transaction()
      .execute((trx) => insertProject(trx, user.organizationId, name, now));
    return { id: ids.projectId, name, defaultBranchId: ids.branchId, createdAt: now };
  }

  async listProjects(user: UserPrincipal) {
    return listProjectsOf(this.db, user.organizationId);
  }

  async projectOf(user: UserPrincipal, projectId: string) {
    const project = await findProject(this.db, user.organizationId, projectId);
    if (!project) throw appError('PROJECT_NOT_FOUND');
    return project;
  }

  async listBranches(user: UserPrincipal, projectId: string) {
    const project = await this.projectOf(user, projectId);
    const branches = await listBranchesOf(this.db, project.id);
    return branches.map((branch) => ({ ...branch, isDefault: branch.id === project.defaultBranchId }));
  }

  /**
   * Creates a branch from another (default: the project's default branch). Modules that keep
   * per-branch state (test revisions) copy it through `onBranchCreated` in the same transaction.
   */
  async createBranch(
    user: UserPrincipal,
    projectId: string,
    input: { name: string; sourceBranchId?: string | undefined },
    onBranchCreated: BranchCopier[],
  ) {
    const project = await this.projectOf(user, projectId);
    const sourceBranchId = input.sourceBranchId ?? project.defaultBranchId;
    if (!(await branchExistsInProject(this.db, project.id, sourceBranchId)))
      throw appError('BRANCH_NOT_FOUND');
    const id = randomUUID();
    const now = isoNow(this.clock);
    try {
      await this.db.transaction().execute(async (trx) => {
        await insertBranch(trx, {
          id,
          projectId: project.id,
          name: input.name,
          sourceBranchId,
          createdAt: now,
        });
        for (const copy of onBranchCreated)
          await copy(trx, { projectId: project.id, fromBranchId: sourceBranchId, toBranchId: id, now });
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw appError('BRANCH_NAME_TAKEN', input.name);
      throw error;
    }
    return { id, name: input.name, sourceBranchId, createdAt: now, isDefault: false };
  }

  async createTag(user: UserPrincipal, name: string) {
    const id = randomUUID();
    try {
      await insertTag(this.db, {
        id,
        organizationId: user.organizationId,
        name,
        createdAt: isoNow(this.clock),
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw appError('TAG_NAME_TAKEN', name);
      throw error;
    }
    return { id, name };
  }

  async listTags(user: UserPrincipal) {
    return listTagsOf(this.db, user.organizationId);
  }

  async deleteTag(user: UserPrincipal, id: string) {
    if (!(await deleteTagOf(this.db, user.organizationId, id))) throw appError('TAG_NOT_FOUND');
  }

  async organization(user: UserPrincipal) {
    const org = await getOrganization(this.db, user.organizationId);
    return {
      id: org.id,
      name: org.name,
      subscriptionActive: Boolean(org.subscriptionActive),
      // Unset means the install's default: the console shows the cap that applies.
      concurrencyCap: org.concurrencyCap ?? defaultConcurrencyCap,
      createdAt: org.createdAt,
    };
  }

  async createUser(
    user: UserPrincipal,
    input: { email: string; password: string; role: 'owner' | 'admin' | 'member' },
  ) {
    if (input.role === 'owner' && user.role !== 'owner') throw appError('OWNER_REQUIRED_TO_ADD_OWNER');
    const existing = await findUserForSignIn(this.db, input.email.toLowerCase());
    if (existing && existing.organizationId !== user.organizationId) {
      // Another organization's person: the answer looks like any other add, so it tells this
      // organization nothing about who uses the install; nothing is created here.
      return { id: randomUUID(), email: input.email.toLowerCase(), role: input.role };
    }
    try {
      const id = await insertUser(
        this.db,
        { ...input, organizationId: user.organizationId },
        isoNow(this.clock),
      );
      return { id, email: input.email.toLowerCase(), role: input.role };
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      const taken = await findUserForSignIn(this.db, input.email.toLowerCase());
      if (taken && taken.organizationId !== user.organizationId)
        return { id: randomUUID(), email: input.email.toLowerCase(), role: input.role };
      throw appError('USER_EMAIL_TAKEN', input.email);
    }
  }

  async listUsers(user: UserPrincipal) {
    return listUsersOf(this.db, user.organizationId);
  }
}

export type BranchCopier = (
  trx: import('../../adapters/db/index.ts').Tx,
  branch: { projectId: string; fromBranchId: string; toBranchId: string; now: string },
) => Promise<void>;
