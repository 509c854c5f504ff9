import type { Db } from '../../adapters/db/index.ts';
import { transaction } from '../../adapters/db/locks.ts';
import { type Clock, isoNow } from '../../clock.ts';
import { appError } from '../../errors.ts';
import type { UserPrincipal } from '../../plugins/auth/credentials.ts';
import { installOrganizationId, updateConcurrencyCap, updateSubscription } from './accounts-repository.ts';
import {
  deleteInstallAdmin,
  findOrganization,
  findUserByEmail,
  insertInstallAdmin,
  installAdminCount,
  listInstallAdmins,
  listOrganizations,
  type OrganizationRow,
  organizationsDueForPurge,
  purgeOrganization,
  updateOrganizationState,
} from './install-repository.ts';
import { defaultConcurrencyCap, insertOrganization, insertProject, insertUser } from './repository.ts';

const dayMs = 24 * 60 * 60 * 1000;

const organizationView = (row: OrganizationRow, installOrganization: string | undefined) => ({
  id: row.id,
  name: row.name,
  subscriptionActive: Boolean(row.subscriptionActive),
  concurrencyCap: row.concurrencyCap ?? defaultConcurrencyCap,
  suspendedAt: row.suspendedAt,
  deleteAfter: row.deleteAfter,
  isInstallOrganization: row.id === installOrganization,
  userCount: Number(row.userCount ?? 0),
  createdAt: row.createdAt,
});

const isUniqueViolation = (error: unknown) =>
  /unique|duplicate key/i.test(String((error as { message?: string }).message ?? ''));

/**
 * What the people who run the install do across organizations: create, suspend and delete
 * them (a deletion waits out a grace period, during which it can be undone), set their
 * subscription and concurrency cap (at most the install's runner slots), and grant the role.
 * Routes reach this only with the `installAdmin` access rule.
 */
export class InstallService {
  private readonly db: Db;
  private readonly clock: Clock;
  readonly runnerSlots: number;
  readonly deleteGraceDays: number;

  constructor(options: { db: Db; clock: Clock; runnerSlots: number; deleteGraceDays: number }) {
    this.db = options.db;
    this.clock = options.clock;
    this.runnerSlots = options.runnerSlots;
    this.deleteGraceDays = options.deleteGraceDays;
  }

  private async found(organizationId: string) {
    const row = await findOrganization(this.db, organizationId);
    if (!row) throw appError('ORGANIZATION_NOT_FOUND');
    return row;
  }

  async organizations() {
    const installOrganization = await installOrganizationId(this.db);
    return (await listOrganizations(this.db)).map((row) => organizationView(row, installOrganization));
  }

  async organization(organizationId: string) {
    const row = await this.found(organizationId);
    return organizationView(row, await installOrganizationId(this.db));
  }

  /** A new organization with its owner and project `Default`; its cap is the install's runner slots. */
  async createOrganization(input: { name: string; ownerEmail: string; ownerPassword: string }) {
    const now = isoNow(this.clock);
    try {
      return await this.db.transaction().execute(async (trx) => {
        const id = await insertOrganization(trx, input.name, now, this.runnerSlots);
        await insertUser(
          trx,
          { organizationId: id, email: input.ownerEmail, password: input.ownerPassword, role: 'owner' },
          now,
        );
        const { projectId, branchId } = await insertProject(trx, id, 'Default', now);
        return { id, projectId, branchId };
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw appError('USER_EMAIL_TAKEN', input.ownerEmail);
      throw error;
    }
  }

  async setSubscription(organizationId: string, active: boolean) {
    await this.found(organizationId);
    await updateSubscription(this.db, organizationId, active);
    return { active };
  }

  async setConcurrencyCap(organizationId: string, concurrencyCap: number) {
    if (concurrencyCap > this.runnerSlots) throw appError('CONCURRENCY_CAP_OVER_SLOTS', this.runnerSlots);
    await this.found(organizationId);
    await updateConcurrencyCap(this.db, organizationId, concurrencyCap);
    return { concurrencyCap };
  }

  private async refuseInstallOrganization(organizationId: string) {
    if ((await installOrganizationId(this.db)) === organizationId)
      throw appError('INSTALL_ORGANIZATION_PROTECTED');
  }

  /** Lifting a suspension also cancels a pending deletion (deleting suspends). */
  async setSuspended(organizationId: string, suspended: boolean) {
    await this.found(organizationId);
    await this.refuseInstallOrganization(organizationId);
    const now = isoNow(this.clock);
    await updateOrganizationState(
      this.db,
      organizationId,
      suspended ? { suspendedAt: now } : { suspendedAt: null, deleteAfter: null },
    );
    return this.organization(organizationId);
  }

  /** Suspends now and purges after the grace period, unless restored (`setSuspended(false)`) before. */
  async scheduleDeletion(organizationId: string) {
    const row = await this.found(organizationId);
    await this.refuseInstallOrganization(organizationId);
    const now = this.clock.now();
    await updateOrganizationState(this.db, organizationId, {
      suspendedAt: row.suspendedAt ?? now.toISOString(),
      deleteAfter: new Date(now.getTime() + this.deleteGraceDays * dayMs).toISOString(),
    });
    return this.organization(organizationId);
  }

  /** Purges the organizations whose grace period has passed; returns their ids. */
  async purgeDue(): Promise<string[]> {
    const due = await organizationsDueForPurge(this.db, isoNow(this.clock));
    const purged: string[] = [];
    for (const { id } of due) {
      if ((await installOrganizationId(this.db)) === id) continue;
      await transaction(this.db, (trx) => purgeOrganization(trx, id));
      purged.push(id);
    }
    return purged;
  }

  async admins() {
    return listInstallAdmins(this.db);
  }

  async grantAdmin(actor: UserPrincipal, email: string) {
    const user = await findUserByEmail(this.db, email);
    if (!user) throw appError('USER_NOT_FOUND');
    await insertInstallAdmin(this.db, {
      userId: user.id,
      grantedByUserId: actor.userId,
      createdAt: isoNow(this.clock),
    });
    const granted = (await listInstallAdmins(this.db)).find((admin) => admin.userId === user.id);
    if (!granted) throw appError('USER_NOT_FOUND');
    return granted;
  }

  async revokeAdmin(userId: string) {
    await transaction(this.db, async (trx) => {
      if ((await installAdminCount(trx)) <= 1) {
        const only = (await listInstallAdmins(trx))[0];
        if (only?.userId === userId) throw appError('LAST_INSTALL_ADMIN');
      }
      if (!(await deleteInstallAdmin(trx, userId))) throw appError('USER_NOT_FOUND');
    });
  }
}
