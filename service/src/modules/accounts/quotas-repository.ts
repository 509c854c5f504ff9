/**
 * An organization's quotas as install admins set them: the most its runs store as artifacts
 * and the most email inboxes it holds. Null is the install's default (`ORG_ARTIFACTS_MAX_BYTES`,
 * the spec's inbox limit); the runs and inboxes modules apply them through public.ts.
 */
import type { Db, Tx } from '../../adapters/db/index.ts';

type Executor = Db | Tx;

/** The spec's inbox limit per organization: the default when an organization has none of its own. */
export const defaultInboxesPerOrganization = 5;

export interface OrganizationQuotas {
  artifactQuotaBytes: number | null;
  inboxLimit: number | null;
}

/** The organization's own quotas (nulls for an unknown organization: the defaults apply). */
export async function organizationQuotasOf(
  db: Executor,
  organizationId: string,
): Promise<OrganizationQuotas> {
  const row = await db
    .selectFrom('organizations')
    .select(['artifactQuotaBytes', 'inboxLimit'])
    .where('id', '=', organizationId)
    .executeTakeFirst();
  return {
    // PostgreSQL's bigint arrives as a number (adapters/db/index.ts); SQLite's integer too.
    artifactQuotaBytes: row?.artifactQuotaBytes == null ? null : Number(row.artifactQuotaBytes),
    inboxLimit: row?.inboxLimit ?? null,
  };
}

export async function updateOrganizationQuotas(
  db: Executor,
  organizationId: string,
  quotas: Partial<OrganizationQuotas>,
): Promise<void> {
  // Only the quotas given change: an absent one is left out of the statement.
  const set = Object.fromEntries(Object.entries(quotas).filter(([, value]) => value !== undefined));
  if (Object.keys(set).length === 0) return;
  await db.updateTable('organizations').set(set).where('id', '=', organizationId).execute();
}
