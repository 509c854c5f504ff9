import { randomUUID } from 'node:crypto';
import { type RunConfig, runConfig } from '@stepdeck/contract';
import { type Db, readJson, type Tx, toJson } from '../../adapters/db/index.ts';
import { type Clock, isoNow } from '../../clock.ts';
import { appError } from '../../errors.ts';
import { findProject } from '../accounts/public.ts';
import { environmentOfProject } from '../environments/public.ts';
import {
  deletePreset,
  findPreset,
  insertPreset,
  listPresets,
  type PresetRow,
  updatePreset,
} from './repository.ts';

const isUniqueViolation = (error: unknown) =>
  /unique|duplicate key/i.test(String((error as { message?: string }).message ?? ''));

const toPreset = (row: PresetRow) => ({
  id: row.id,
  projectId: row.projectId,
  name: row.name,
  config: readJson(runConfig, row.config, {}, `presets ${row.id}/config`),
  environment: row.environment,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
});
export type Preset = ReturnType<typeof toPreset>;

/**
 * A refusal another module adds to deleting a preset (schedules refuse to lose the preset they
 * name), run inside the delete's transaction once the preset is found; it throws to refuse.
 */
export type PresetDeleteGuard = (trx: Tx, projectId: string, presetId: string) => Promise<void>;

/** Config presets: named run configurations of a project, validated by the routes' contract schema. */
export class PresetsService {
  private readonly db: Db;
  private readonly clock: Clock;

  /** Refusals of other modules, registered when they start (`AppContext.deleteGuards`). */
  private readonly deleteGuards: readonly PresetDeleteGuard[];

  constructor(options: { db: Db; clock: Clock; deleteGuards?: readonly PresetDeleteGuard[] }) {
    this.db = options.db;
    this.clock = options.clock;
    this.deleteGuards = options.deleteGuards ?? [];
  }

  private async project(organizationId: string, projectId: string) {
    if (!(await findProject(this.db, organizationId, projectId))) throw appError('PROJECT_NOT_FOUND');
  }

  async list(organizationId: string, projectId: string): Promise<Preset[]> {
    await this.project(organizationId, projectId);
    return (await listPresets(this.db, projectId)).map(toPreset);
  }

  async get(organizationId: string, projectId: string, presetId: string): Promise<Preset> {
    await this.project(organizationId, projectId);
    const row = await findPreset(this.db, projectId, presetId);
    if (!row) throw appError('PRESET_NOT_FOUND');
    return toPreset(row);
  }

  async create(
    organizationId: string,
    projectId: string,
    input: { name: string; config: RunConfig; environment?: string | null | undefined },
  ) {
    await this.project(organizationId, projectId);
    if (input.environment) await environmentOfProject(this.db, projectId, input.environment);
    const now = isoNow(this.clock);
    const row: PresetRow = {
      id: randomUUID(),
      projectId,
      name: input.name,
      config: toJson(input.config),
      environment: input.environment ?? null,
      createdAt: now,
      updatedAt: now,
    };
    try {
      await insertPreset(this.db, { ...row, organizationId });
    } catch (error) {
      if (isUniqueViolation(error)) throw this.nameTaken(input.name);
      throw error;
    }
    return toPreset(row);
  }

  async update(
    organizationId: string,
    projectId: string,
    presetId: string,
    input: { name?: string; config?: RunConfig; environment?: string | null | undefined },
  ) {
    await this.project(organizationId, projectId);
    if (input.environment) await environmentOfProject(this.db, projectId, input.environment);
    try {
      const result = await updatePreset(this.db, projectId, presetId, {
        ...(input.name === undefined ? {} : { name: input.name }),
        ...(input.config === undefined ? {} : { config: toJson(input.config) }),
        ...(input.environment === undefined ? {} : { environment: input.environment }),
        updatedAt: isoNow(this.clock),
      });
      if (Number(result.numUpdatedRows) === 0) throw appError('PRESET_NOT_FOUND');
    } catch (error) {
      if (input.name !== undefined && isUniqueViolation(error)) throw this.nameTaken(input.name);
      throw error;
    }
    return this.get(organizationId, projectId, presetId);
  }

  /** Refused while another module's guard objects (a schedule names the preset). */
  async delete(organizationId: string, projectId: string, presetId: string) {
    await this.project(organizationId, projectId);
    await this.db.transaction().execute(async (trx) => {
      if (!(await findPreset(trx, projectId, presetId))) throw appError('PRESET_NOT_FOUND');
      for (const guard of this.deleteGuards) await guard(trx, projectId, presetId);
      await deletePreset(trx, projectId, presetId);
    });
  }

  private nameTaken(name: string) {
    return appError('PRESET_NAME_TAKEN', name);
  }
}
