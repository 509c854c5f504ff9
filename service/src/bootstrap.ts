import fs from 'node:fs';
import path from 'node:path';
import { allScopes } from '@stepdeck/contract';
import type { Db } from './adapters/db/index.ts';
import { type Clock, isoNow } from './clock.ts';
import {
  adminEmail,
  bootstrapFileName,
  insertApiKey,
  insertInstall,
  insertInstallAdmin,
  insertOrganization,
  insertProject,
  insertUser,
  installOrganizationId,
} from './modules/accounts/public.ts';
import { newPassword } from './plugins/auth/secrets.ts';

export interface BootstrapInfo {
  organizationId: string;
  projectId: string;
  branchId: string;
  apiKey: string;
  adminEmail: string;
  adminPassword: string;
  baseUrl: string;
}

/**
 * First start on an empty database: an organization, its owner (the first install admin), project `Default` on
 * branch `main`, and a `bootstrap` key with every scope. The organization's concurrency cap is
 * the install's runner slots, as for every organization an install admin creates: a fresh
 * single-organization install runs a large run on all of its runners. The `install` row (primary key 1)
 * makes this happen once even when several instances start together on PostgreSQL.
 * Returns the credentials only when this call created them.
 */
export async function bootstrapInstall(
  db: Db,
  options: {
    dataDir: string;
    adminPassword: string | undefined;
    publicUrl: string;
    clock: Clock;
    runnerSlots: number;
  },
): Promise<BootstrapInfo | undefined> {
  if ((await installOrganizationId(db)) !== undefined) return undefined;
  const now = isoNow(options.clock);
  const adminPassword = options.adminPassword ?? newPassword();
  let info: BootstrapInfo;
  try {
    info = await db.transaction().execute(async (trx) => {
      const organizationId = await insertOrganization(trx, 'Default organization', now, options.runnerSlots);
      await insertInstall(trx, organizationId, now);
      const adminId = await insertUser(
        trx,
        { organizationId, email: adminEmail, password: adminPassword, role: 'owner' },
        now,
      );
      // The bootstrap admin runs the install: the first install admin.
      await insertInstallAdmin(trx, { userId: adminId, grantedByUserId: null, createdAt: now });
      const { projectId, branchId } = await insertProject(trx, organizationId, 'Default', now);
      const key = await insertApiKey(
        trx,
        { organizationId, name: 'bootstrap', scopes: allScopes, createdByUserId: null },
        now,
      );
      return {
        organizationId,
        projectId,
        branchId,
        apiKey: key.key,
        adminEmail,
        adminPassword,
        baseUrl: options.publicUrl,
      };
    });
  } catch (error) {
    // Another instance won the race to bootstrap; its data stands.
    if ((await installOrganizationId(db)) !== undefined) return undefined;
    throw error;
  }
  fs.mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(options.dataDir, bootstrapFileName);
  // Written aside, then renamed: whoever waits for the file (an install script, a test) never
  // reads it half-written.
  const partial = path.join(options.dataDir, `.${bootstrapFileName}.partial`);
  fs.writeFileSync(partial, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
  fs.chmodSync(partial, 0o600);
  fs.renameSync(partial, file);
  return info;
}
