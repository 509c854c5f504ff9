import { randomUUID } from 'node:crypto';
import {
  type Environment,
  type EnvironmentCreateBody,
  type EnvironmentUpdateBody,
  environmentVariables,
} from '@stepdeck/contract';
import { type Db, readJson, toJson } from '../../adapters/db/index.ts';
import { type Clock, isoNow } from '../../clock.ts';
import { appError } from '../../errors.ts';
import { SecretBox } from '../../secret-box.ts';
import { findProject } from '../accounts/public.ts';
import {
  changeSecrets,
  deleteEnvironment,
  type EnvironmentRow,
  type EnvironmentSecretRow,
  findEnvironment,
  insertEnvironment,
  listEnvironments,
  listSecretNames,
  updateEnvironment,
} from './repository.ts';

const isUniqueViolation = (error: unknown) =>
  /unique|duplicate key/i.test(String((error as { message?: string }).message ?? ''));

export const variablesOf = (row: Pick<EnvironmentRow, 'id' | 'variables'>): Record<string, string> =>
  readJson(environmentVariables, row.variables, {}, `environments ${row.id}/variables`);

function toEnvironment(row: EnvironmentRow, secrets: EnvironmentSecretRow[]): Environment {
  return {
    id: row.id,
    projectId: row.projectId,
    name: row.name,
    baseURL: row.baseURL,
    variables: variablesOf(row),
    secrets: secrets
      .filter((secret) => secret.environmentId === row.id)
      .map(({ name, createdAt, updatedAt }) => ({ name, createdAt, updatedAt })),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** Environments of a project: base URL, variables and write-only secrets, validated by the contract. */
export class EnvironmentsService {
  private readonly options: { db: Db; clock: Clock };

  constructor(options: { db: Db; clock: Clock }) {
    this.options = options;
  }

  private get db() {
    return this.options.db;
  }

  private async project(organizationId: string, projectId: string) {
    if (!(await findProject(this.db, organizationId, projectId))) throw appError('PROJECT_NOT_FOUND');
  }

  async list(organizationId: string, projectId: string): Promise<Environment[]> {
    await this.project(organizationId, projectId);
    const rows = await listEnvironments(this.db, projectId);
    const secrets = await listSecretNames(
      this.db,
      rows.map((row) => row.id),
    );
    return rows.map((row) => toEnvironment(row, secrets));
  }

  async get(organizationId: string, projectId: string, environmentId: string): Promise<Environment> {
    await this.project(organizationId, projectId);
    const row = await findEnvironment(this.db, projectId, environmentId);
    if (!row) throw appError('ENVIRONMENT_NOT_FOUND');
    return toEnvironment(row, await listSecretNames(this.db, [row.id]));
  }

  async create(
    organizationId: string,
    projectId: string,
    input: EnvironmentCreateBody,
  ): Promise<Environment> {
    await this.project(organizationId, projectId);
    const now = isoNow(this.options.clock);
    const secrets = await this.sealed(input.secrets);
    const row: EnvironmentRow = {
      id: randomUUID(),
      organizationId,
      projectId,
      name: input.name,
      baseURL: input.baseURL ?? null,
      variables: toJson(input.variables ?? {}),
      createdAt: now,
      updatedAt: now,
    };
    await this.nameChecked(input.name, () =>
      this.db.transaction().execute(async (tx) => {
        await insertEnvironment(tx, row);
        await changeSecrets(tx, row.id, secrets, now);
      }),
    );
    return this.get(organizationId, projectId, row.id);
  }

  async update(
    organizationId: string,
    projectId: string,
    environmentId: string,
    input: EnvironmentUpdateBody,
  ): Promise<Environment> {
    await this.project(organizationId, projectId);
    const now = isoNow(this.options.clock);
    const secrets = await this.sealed(input.secrets);
    await this.nameChecked(input.name, () =>
      this.db.transaction().execute(async (tx) => {
        if (!(await findEnvironment(tx, projectId, environmentId))) throw appError('ENVIRONMENT_NOT_FOUND');
        await updateEnvironment(tx, environmentId, {
          ...(input.name === undefined ? {} : { name: input.name }),
          ...(input.baseURL === undefined ? {} : { baseURL: input.baseURL }),
          ...(input.variables === undefined ? {} : { variables: toJson(input.variables) }),
          updatedAt: now,
        });
        await changeSecrets(tx, environmentId, secrets, now);
      }),
    );
    return this.get(organizationId, projectId, environmentId);
  }

  /** Its secrets go with it; runs keep the name they recorded. */
  async delete(organizationId: string, projectId: string, environmentId: string): Promise<void> {
    await this.project(organizationId, projectId);
    await this.db.transaction().execute(async (tx) => {
      if (!(await findEnvironment(tx, projectId, environmentId))) throw appError('ENVIRONMENT_NOT_FOUND');
      await deleteEnvironment(tx, environmentId);
    });
  }

  /** The secrets to set, sealed; removals (`null`) as they are. */
  private async sealed(secrets: Record<string, string | null> | undefined) {
    const box = await SecretBox.open(this.db);
    return Object.fromEntries(
      Object.entries(secrets ?? {}).map(([name, value]) => [name, value === null ? null : box.seal(value)]),
    );
  }

  private async nameChecked(name: string | undefined, write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } catch (error) {
      if (name !== undefined && isUniqueViolation(error)) throw appError('ENVIRONMENT_NAME_TAKEN', name);
      throw error;
    }
  }
}
