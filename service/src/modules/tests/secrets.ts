import type { Db } from '../../adapters/db/index.ts';
import { type Clock, isoNow } from '../../clock.ts';
import { appError } from '../../errors.ts';
import { findProject } from '../accounts/public.ts';
import { deleteSecret, listSecrets, putSecret } from './secrets-repository.ts';

/**
 * Project secrets as the console manages them: set, listed by name, deleted, always in a
 * project of the caller's organization (another organization's project is a 404, as an unknown
 * one). Values are write-only: stored sealed, returned by no call here, opened only for a run.
 */
export class ProjectSecrets {
  private readonly db: Db;
  private readonly clock: Clock;

  constructor(options: { db: Db; clock: Clock }) {
    this.db = options.db;
    this.clock = options.clock;
  }

  /** Creates or replaces a secret; `created` tells which (201 or 200). */
  async put(organizationId: string, projectId: string, name: string, value: string) {
    const project = await this.projectOf(organizationId, projectId);
    return putSecret(this.db, project, name, value, isoNow(this.clock));
  }

  async list(organizationId: string, projectId: string) {
    return listSecrets(this.db, await this.projectOf(organizationId, projectId));
  }

  async remove(organizationId: string, projectId: string, name: string): Promise<void> {
    await deleteSecret(this.db, await this.projectOf(organizationId, projectId), name);
  }

  private async projectOf(organizationId: string, projectId: string): Promise<string> {
    const project = await findProject(this.db, organizationId, projectId);
    if (!project) throw appError('PROJECT_NOT_FOUND');
    return project.id;
  }
}
