import { randomUUID } from 'node:crypto';
import { jsonObject, type RunConfig } from '@stepdeck/contract';
import type { Db } from '../../adapters/db/index.ts';
import { readJson, toFlag, toJson } from '../../adapters/db/index.ts';
import { type Clock, isoNow } from '../../clock.ts';
import { appError } from '../../errors.ts';
import { findBranch, findProject, findTag } from '../accounts/public.ts';
import type { AuditEntryWriter } from '../audit/public.ts';
import { environmentOfProject } from '../environments/public.ts';
import { checkPresetOfProject, linkSchedulePreset, presetIdsOfSchedules } from '../presets/public.ts';
import { testIdsInProject } from '../tests/public.ts';
import { nextTick, validateCron } from './cron.ts';
import {
  deleteScheduleOf,
  findSchedule,
  insertSchedule,
  listSchedules,
  recordStarted,
  type ScheduleRow,
  storedTestIds,
  toSchedule,
  updateSchedule,
} from './repository.ts';

export const scheduleType = 'cron';

/** What a schedule hands the runs module to start one run (bulk mode, no API cooldowns). */
export interface ScheduledRunRequest {
  organizationId: string;
  projectId: string;
  branchId: string;
  testIds?: string[];
  tagId?: string;
  config?: RunConfig;
  /** The environment the schedule names (over its preset's), by name. */
  environment?: string;
  schedule: { id: string; name: string; type: string };
  /** The audit entry of a "trigger now" request, written in the run's transaction; none as it fires. */
  audit?: AuditEntryWriter;
}
export interface StartedRun {
  runId: string;
  status: string;
  totalTests: number;
  message: string;
}
export type StartScheduledRun = (request: ScheduledRunRequest) => Promise<StartedRun>;

export interface ScheduleInput {
  name: string;
  projectId: string;
  branchId?: string;
  testIds?: string[];
  tagId?: string;
  cron: string;
  timezone?: string;
  config?: RunConfig;
  enabled?: boolean;
  /** A config preset of the schedule's project, layered under `config` when it fires. */
  presetId?: string;
  /** An environment of the schedule's project, by name: its runs use it. */
  environment?: string;
}
export type ScheduleUpdate = Partial<
  Omit<ScheduleInput, 'projectId' | 'config' | 'presetId' | 'environment'>
> & {
  config?: RunConfig | null;
  presetId?: string | null;
  environment?: string | null;
};

export function scheduledRunRequest(row: ScheduleRow): ScheduledRunRequest {
  // Read as the schedule's API reads them (toSchedule): a corrupt row stops the firing, named.
  // The config was checked with runConfig when written; read back as an object, so its keys keep
  // their order in the run (runConfig's parse would reorder them).
  const testIds = readJson(storedTestIds, row.testIds, null, `schedules ${row.id}/testIds`) ?? undefined;
  const config = readJson(
    jsonObject.nullable(),
    row.config,
    null,
    `schedules ${row.id}/config`,
  ) as RunConfig | null;
  return {
    organizationId: row.organizationId,
    projectId: row.projectId,
    branchId: row.branchId,
    ...(testIds ? { testIds } : {}),
    ...(row.tagId ? { tagId: row.tagId } : {}),
    ...(config ? { config } : {}),
    ...(row.environment ? { environment: row.environment } : {}),
    schedule: { id: row.id, name: row.name, type: row.scheduleType },
  };
}

/** Schedule records: console management, API-key reads, trigger, pause and resume. */
export class SchedulesService {
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly startRun: StartScheduledRun;
  /** Called after a change that may move the earliest `nextRunAt` (wakes the local timer). */
  private readonly changed: () => void;

  constructor(options: { db: Db; clock: Clock; startRun: StartScheduledRun; changed?: () => void }) {
    this.db = options.db;
    this.clock = options.clock;
    this.startRun = options.startRun;
    this.changed = options.changed ?? (() => {});
  }

  async list(organizationId: string, projectId?: string) {
    const rows = await listSchedules(this.db, organizationId, projectId);
    const presets = await presetIdsOfSchedules(
      this.db,
      rows.map((row) => row.id),
    );
    return rows.map((row) => ({ ...toSchedule(row), presetId: presets.get(row.id) ?? null }));
  }

  async get(organizationId: string, id: string) {
    return this.withPreset(toSchedule(await this.row(organizationId, id)));
  }

  private async withPreset<T extends { id: string }>(schedule: T) {
    const presets = await presetIdsOfSchedules(this.db, [schedule.id]);
    return { ...schedule, presetId: presets.get(schedule.id) ?? null };
  }

  async create(organizationId: string, input: ScheduleInput) {
    const project = await findProject(this.db, organizationId, input.projectId);
    if (!project) throw appError('PROJECT_NOT_FOUND');
    const branchId = input.branchId ?? project.defaultBranchId;
    await this.checkBranch(project.id, branchId);
    const target = await this.checkTarget(organizationId, project.id, input.testIds, input.tagId);
    if (input.presetId) await checkPresetOfProject(this.db, project.id, input.presetId);
    if (input.environment) await environmentOfProject(this.db, project.id, input.environment);
    const timezone = input.timezone ?? 'UTC';
    validateCron(input.cron, timezone);
    const enabled = input.enabled ?? true;
    const now = isoNow(this.clock);
    const row: ScheduleRow = {
      id: randomUUID(),
      organizationId,
      projectId: project.id,
      branchId,
      name: input.name,
      testIds: target.testIds ? toJson(target.testIds) : null,
      tagId: target.tagId ?? null,
      cron: input.cron,
      timezone,
      config: input.config ? toJson(input.config) : null,
      environment: input.environment ?? null,
      enabled: toFlag(enabled),
      scheduleType,
      nextRunAt: enabled ? nextTick(input.cron, timezone, this.clock.now()) : null,
      lastRunAt: null,
      lastRunId: null,
      lastSkippedAt: null,
      lastSkipReason: null,
      skippedCount: 0,
      lastError: null,
      lastErrorAt: null,
      createdAt: now,
      updatedAt: now,
    };
    await this.db.transaction().execute(async (trx) => {
      await insertSchedule(trx, row);
      if (input.presetId) await linkSchedulePreset(trx, row.id, input.presetId);
    });
    this.changed();
    return { ...toSchedule(row), presetId: input.presetId ?? null };
  }

  async update(organizationId: string, id: string, input: ScheduleUpdate) {
    const current = await this.row(organizationId, id);
    const changes: Partial<ScheduleRow> = {};
    if (input.name !== undefined) changes.name = input.name;
    if (input.branchId !== undefined) {
      await this.checkBranch(current.projectId, input.branchId);
      changes.branchId = input.branchId;
    }
    if (input.testIds !== undefined || input.tagId !== undefined) {
      const target = await this.checkTarget(organizationId, current.projectId, input.testIds, input.tagId);
      changes.testIds = target.testIds ? toJson(target.testIds) : null;
      changes.tagId = target.tagId ?? null;
    }
    if (input.config !== undefined) changes.config = input.config === null ? null : toJson(input.config);
    if (input.presetId) await checkPresetOfProject(this.db, current.projectId, input.presetId);
    if (input.environment) await environmentOfProject(this.db, current.projectId, input.environment);
    if (input.environment !== undefined) changes.environment = input.environment;
    const cron = input.cron ?? current.cron;
    const timezone = input.timezone ?? current.timezone;
    validateCron(cron, timezone);
    changes.cron = cron;
    changes.timezone = timezone;
    const enabled = input.enabled ?? current.enabled === 1;
    changes.enabled = toFlag(enabled);
    const timing =
      cron !== current.cron || timezone !== current.timezone || enabled !== (current.enabled === 1);
    if (timing) changes.nextRunAt = enabled ? nextTick(cron, timezone, this.clock.now()) : null;
    changes.updatedAt = isoNow(this.clock);
    await updateSchedule(this.db, current.id, changes);
    if (input.presetId !== undefined) await linkSchedulePreset(this.db, current.id, input.presetId);
    if (timing) this.changed();
    return this.withPreset(toSchedule({ ...current, ...changes }));
  }

  async remove(organizationId: string, id: string) {
    if (!(await deleteScheduleOf(this.db, organizationId, id))) throw appError('SCHEDULE_NOT_FOUND');
    await linkSchedulePreset(this.db, id, null);
    this.changed();
  }

  /** Pause: a disabled schedule never fires and has no `nextRunAt`. */
  async disable(organizationId: string, id: string) {
    const current = await this.row(organizationId, id);
    const changes = { enabled: 0, nextRunAt: null, updatedAt: isoNow(this.clock) };
    await updateSchedule(this.db, current.id, changes);
    this.changed();
    return this.withPreset(toSchedule({ ...current, ...changes }));
  }

  /** Resume: `nextRunAt` is recomputed from now, so ticks missed while paused never fire. */
  async enable(organizationId: string, id: string) {
    const current = await this.row(organizationId, id);
    const changes = {
      enabled: 1,
      nextRunAt: nextTick(current.cron, current.timezone, this.clock.now()),
      updatedAt: isoNow(this.clock),
    };
    await updateSchedule(this.db, current.id, changes);
    this.changed();
    return this.withPreset(toSchedule({ ...current, ...changes }));
  }

  /** Starts a run now, enabled or not; the run carries the schedule like a fired one. */
  async trigger(organizationId: string, id: string, audit?: AuditEntryWriter): Promise<StartedRun> {
    const current = await this.row(organizationId, id);
    const started = await this.startRun({ ...scheduledRunRequest(current), ...(audit ? { audit } : {}) });
    await recordStarted(this.db, current.id, null, started.runId, isoNow(this.clock));
    return started;
  }

  private async row(organizationId: string, id: string): Promise<ScheduleRow> {
    const row = await findSchedule(this.db, organizationId, id);
    if (!row) throw appError('SCHEDULE_NOT_FOUND');
    return row;
  }

  private async checkBranch(projectId: string, branchId: string) {
    const branch = await findBranch(this.db, branchId, projectId);
    if (!branch) throw appError('BRANCH_NOT_FOUND');
  }

  /** Exactly one of `testIds` / `tagId`; tests must be in the project, the tag in the organization. */
  private async checkTarget(organizationId: string, projectId: string, testIds?: string[], tagId?: string) {
    if ((testIds === undefined) === (tagId === undefined)) {
      throw appError('SCHEDULE_SELECTION_INVALID');
    }
    if (testIds) {
      const unique = [...new Set(testIds)];
      if (unique.length === 0) throw appError('SCHEDULE_TEST_IDS_EMPTY');
      const known = await testIdsInProject(this.db, projectId, unique);
      const missing = unique.find((testId) => !known.has(testId));
      if (missing) throw appError('TEST_NOT_FOUND', missing);
      return { testIds: unique };
    }
    const tag = await findTag(this.db, organizationId, tagId as string);
    if (!tag) throw appError('TAG_NOT_FOUND');
    return { tagId };
  }
}
