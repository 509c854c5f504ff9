import type { Db } from '../../adapters/db/index.ts';
import { transaction } from '../../adapters/db/locks.ts';
import { type Clock, isoNow } from '../../clock.ts';
import { appError } from '../../errors.ts';
import type { UserPrincipal } from '../../plugins/auth/credentials.ts';
import { defaultArtifactLimits } from '../../runner/redact-run.ts';
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
import {
  defaultInboxesPerOrganization,
  type OrganizationQuotas,
  organizationQuotasOf,
  updateOrganizationQuotas,
} from './quotas-repository.ts';
import { defaultConcurrencyCap, insertOrganization, insertProject, insertUser } from './repository.ts';

const dayMs = 24 * 60 * 60 * 1000;

/** What applies while an organization's quota is unset. */
export interface QuotaDefaults {
  /** `ORG_ARTIFACTS_MAX_BYTES`. */
  artifactQuotaBytes: number;
  /** The spec's inbox limit per organization. */
  inboxLimit: number;
}

/** An organization's limits as `PUT .../limits` takes them: a field left out stays as it is. */
export interface LimitsChange extends Partial<OrganizationQuotas> {
  concurrencyCap?: number;
}

const organizationView = (
  row: OrganizationRow,
  installOrganization: string | undefined,
  defaults: QuotaDefaults,
) => ({
  id: row.id,
  name: row.name,
  subscriptionActive: Boolean(row.subscriptionActive),
  concurrencyCap: row.concurrencyCap ?? defaultConcurrencyCap,
  suspendedAt: row.suspendedAt,
  deleteAfter: row.deleteAfter,
  isInstallOrganization: row.id === installOrganization,
  userCount: Number(row.userCount ?? 0),
  createdAt: row.createdAt,
  artifactQuotaBytes: row.artifactQuotaBytes == null ? null : Number(row.artifactQuotaBytes),
  inboxLimit: row.inboxLimit,
  defaults,
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
  readonly quotaDefaults: QuotaDefaults;

  constructor(options: {
    db: Db;
    clock: Clock;
    runnerSlots: number;
    deleteGraceDays: number;
    /** Default: the built-in `ORG_ARTIFACTS_MAX_BYTES` and the spec's inbox limit. */
    quotaDefaults?: QuotaDefaults;
  }) {
    this.db = options.db;
    this.clock = options.clock;
    this.runnerSlots = options.runnerSlots;
    this.deleteGraceDays = options.deleteGraceDays;
    this.quotaDefaults = options.quotaDefaults ?? {
      artifactQuotaBytes: defaultArtifactLimits.orgMaxBytes,
      inboxLimit: defaultInboxesPerOrganization,
    };
  }

  private async found(organizationId: string) {
    const row = await findOrganization(this.db, organizationId);
    if (!row) throw appError('ORGANIZATION_NOT_FOUND');
    return row;
  }

  async organizations() {
    const installOrganization = await installOrganizationId(this.db);
    return (await listOrganizations(this.db)).map((row) =>
      organizationView(row, installOrganization, this.quotaDefaults),
    );
  }

  async organization(organizationId: string) {
    const row = await this.found(organizationId);
    return organizationView(row, await installOrganizationId(this.db), this.quotaDefaults);
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

  /** The quotas that apply to the organization, each with whether it is the install's default. */
  async quotasOf(organizationId: string) {
    const own = await organizationQuotasOf(this.db, organizationId);
    return {
      artifactQuotaBytes: own.artifactQuotaBytes ?? this.quotaDefaults.artifactQuotaBytes,
      artifactQuotaIsDefault: own.artifactQuotaBytes === null,
      inboxLimit: own.inboxLimit ?? this.quotaDefaults.inboxLimit,
      inboxLimitIsDefault: own.inboxLimit === null,
    };
  }

  /**
   * Sets the fields given (a quota of null goes back to the install's default) and returns the
   * limits after the change, with what changed in words for the audit entry.
   */
  async setLimits(organizationId: string, change: LimitsChange) {
    if (change.concurrencyCap !== undefined && change.concurrencyCap > this.runnerSlots)
      throw appError('CONCURRENCY_CAP_OVER_SLOTS', this.runnerSlots);
    const before = await this.found(organizationId);
    const beforeQuota = before.artifactQuotaBytes == null ? null : Number(before.artifactQuotaBytes);
    await transaction(this.db, async (trx) => {
      if (change.concurrencyCap !== undefined)
        await updateConcurrencyCap(trx, organizationId, change.concurrencyCap);
      await updateOrganizationQuotas(trx, organizationId, {
        artifactQuotaBytes: change.artifactQuotaBytes,
        inboxLimit: change.inboxLimit,
      });
    });
    const limits = {
      concurrencyCap: change.concurrencyCap ?? before.concurrencyCap ?? defaultConcurrencyCap,
      artifactQuotaBytes: change.artifactQuotaBytes === undefined ? beforeQuota : change.artifactQuotaBytes,
      inboxLimit: change.inboxLimit === undefined ? before.inboxLimit : change.inboxLimit,
    };
    const shown = (value: number | null) => (value === null ? 'default' : String(value));
    const changed = [
      change.concurrencyCap !== undefined &&
        `concurrencyCap: ${shown(before.concurrencyCap)} → ${change.concurrencyCap}`,
      change.artifactQuotaBytes !== undefined &&
        `artifactQuotaBytes: ${shown(beforeQuota)} → ${shown(change.artifactQuotaBytes)}`,
      change.inboxLimit !== undefined &&
        `inboxLimit: ${shown(before.inboxLimit)} → ${shown(change.inboxLimit)}`,
    ].filter((line): line is string => typeof line === 'string');
    return { limits, detail: changed.join('; ') };
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
