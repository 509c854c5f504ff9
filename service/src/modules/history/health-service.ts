import { randomUUID } from 'node:crypto';
import type {
  QuarantinedTest,
  QuarantineEvent,
  QuarantineEvidence,
  TestHealth,
  TestInsights,
  TestInsightsQuery,
} from '@stepdeck/contract';
import { quarantineEvidence as evidenceSchema } from '@stepdeck/contract';
import { fromFlag, readJson, toFlag, toJson } from '../../adapters/db/index.ts';
import type { AppContext } from '../../context.ts';
import { appError } from '../../errors.ts';
import { findBranch, findBranchByName, findProject } from '../accounts/public.ts';
import { earnsQuarantine, earnsRelease, quarantineEvidence } from './health.ts';
import {
  healthLists,
  insertQuarantineEvent,
  latestOnBranch,
  latestQuarantineEvents,
  type QuarantineEventRow,
  quarantinesOfProject,
  statusesSince,
  type TestHealthRow,
  testNames,
  upsertHealth,
} from './health-repository.ts';
import {
  deleteQuarantine,
  isUuid,
  type QuarantineRow,
  quarantinesOf,
  type TestResultRow,
  upsertQuarantine,
} from './repository.ts';
import { summarize } from './summary.ts';

/** How many of a test's latest results on a branch its standing there is derived from. */
export const healthWindow = 20;
/** Results since a quarantine began that its release evidence reads, at most. */
const evidenceLimit = 200;
/** Who the flake and release rules are, in quarantines and their events. */
export const ruleActor = 'Stepdeck (flake rules)';

const healthStatus = (status: string) => status as TestHealth['lastStatus'];

function presentHealth(row: TestHealthRow): TestHealth {
  return {
    testId: row.testId,
    name: row.testName,
    lastRunId: row.lastRunId,
    lastStatus: healthStatus(row.lastStatus),
    lastResultAt: row.lastResultAt,
    failingSince:
      row.failingSinceRunId && row.failingSinceAt
        ? { runId: row.failingSinceRunId, createdAt: row.failingSinceAt, commitSha: row.failingSinceCommit }
        : null,
    passRate: row.passRate,
    flakeRate: row.flakeRate,
    sampleSize: row.sampleSize,
  };
}

/**
 * Where each test stands on each branch (`testHealth`), kept current as runs are recorded,
 * and the quarantine rules that read it: a test whose flake rate passes the install's
 * threshold goes into quarantine by itself; a quarantined test leaves once the Wilson lower
 * bound of its pass rate since it went in clears the release threshold. Every change is an
 * event with the evidence the rule saw.
 */
export class TestHealthService {
  private readonly ctx: AppContext;

  constructor(options: { ctx: AppContext }) {
    this.ctx = options.ctx;
  }

  private get rules() {
    return this.ctx.config.quarantine ?? { autoAt: undefined, minResults: 10, releaseAt: 0.8 };
  }

  /** After a run's results are written: the standing of its tests on its branch, then the rules. */
  async afterRecord(rows: readonly TestResultRow[], names: ReadonlyMap<string, string>): Promise<void> {
    const first = rows[0];
    if (!first) return;
    const testIds = rows.map((row) => row.testId);
    const latest = await latestOnBranch(this.ctx.db, testIds, first.branchId, healthWindow);
    const byTest = new Map<string, typeof latest>();
    for (const result of latest) byTest.set(result.testId, [...(byTest.get(result.testId) ?? []), result]);
    const now = this.ctx.clock.now().toISOString();
    const health: TestHealthRow[] = [];
    for (const row of rows) {
      const results = byTest.get(row.testId) ?? [];
      const newest = results[0];
      if (!newest) continue;
      const summary = summarize(results, healthWindow);
      health.push({
        testId: row.testId,
        branchId: row.branchId,
        branchName: row.branchName,
        organizationId: row.organizationId,
        projectId: row.projectId,
        testName: names.get(row.testId) ?? row.testId,
        lastRunId: newest.runId,
        lastStatus: newest.status,
        lastResultAt: newest.createdAt,
        failingSinceRunId: summary.failingSince?.runId ?? null,
        failingSinceAt: summary.failingSince?.createdAt ?? null,
        failingSinceCommit: summary.failingSince?.commitSha ?? null,
        passRate: summary.passRate,
        flakeRate: summary.flakeRate,
        sampleSize: results.filter((result) => result.status !== 'skipped').length,
        updatedAt: now,
      });
    }
    await upsertHealth(this.ctx.db, health);
    await this.applyRules(first, health);
  }

  private async applyRules(run: TestResultRow, health: readonly TestHealthRow[]): Promise<void> {
    const quarantined = new Map(
      (
        await quarantinesOf(
          this.ctx.db,
          run.projectId,
          health.map((row) => row.testId),
        )
      ).map((row) => [row.testId, row]),
    );
    const now = this.ctx.clock.now().toISOString();
    for (const row of health) {
      const quarantine = quarantined.get(row.testId);
      if (quarantine) {
        const evidence = await this.evidenceOf(quarantine);
        if (!earnsRelease(evidence)) continue;
        await this.ctx.db.transaction().execute(async (tx) => {
          if (!(await deleteQuarantine(tx, run.projectId, row.testId))) return;
          await insertQuarantineEvent(tx, {
            ...this.eventBase(run, row.testId, now),
            kind: 'released',
            automatic: toFlag(true),
            actor: ruleActor,
            reason: `passed ${evidence.passes} of ${evidence.results} since quarantined`,
            evidence: toJson(evidence),
          });
        });
        continue;
      }
      if (!earnsQuarantine(row, this.rules)) continue;
      const reason = `flake rate ${Math.round((row.flakeRate ?? 0) * 100)} % over its latest ${row.sampleSize} results on ${row.branchName}`;
      await this.ctx.db.transaction().execute(async (tx) => {
        await upsertQuarantine(tx, {
          testId: row.testId,
          organizationId: run.organizationId,
          projectId: run.projectId,
          reason,
          owner: null,
          expiresAt: null,
          createdBy: ruleActor,
          createdAt: now,
        });
        await insertQuarantineEvent(tx, {
          ...this.eventBase(run, row.testId, now),
          kind: 'quarantined',
          automatic: toFlag(true),
          actor: ruleActor,
          reason,
          evidence: null,
        });
      });
    }
  }

  private eventBase(scope: { organizationId: string; projectId: string }, testId: string, now: string) {
    return {
      id: randomUUID(),
      organizationId: scope.organizationId,
      projectId: scope.projectId,
      testId,
      createdAt: now,
    };
  }

  /** A person put a test in quarantine or released it (the routes are audited as well). */
  async recordManual(
    scope: { organizationId: string; projectId: string },
    change: { testId: string; kind: 'quarantined' | 'released'; actor: string; reason: string },
  ): Promise<void> {
    const now = this.ctx.clock.now().toISOString();
    await insertQuarantineEvent(this.ctx.db, {
      ...this.eventBase(scope, change.testId, now),
      kind: change.kind,
      automatic: toFlag(false),
      actor: change.actor,
      reason: change.reason,
      evidence: null,
    });
  }

  private async evidenceOf(quarantine: QuarantineRow): Promise<QuarantineEvidence> {
    const statuses = await statusesSince(this.ctx.db, quarantine.testId, quarantine.createdAt, evidenceLimit);
    return quarantineEvidence(statuses, this.rules.releaseAt);
  }

  /** The project's flaky, failing and quarantined tests on a branch (default: its default branch). */
  async insights(
    scope: { organizationId: string; projectId: string },
    query: TestInsightsQuery,
  ): Promise<TestInsights> {
    const branch = await this.branchOf(scope, query.branch);
    const now = this.ctx.clock.now().toISOString();
    const [lists, quarantines, events] = await Promise.all([
      healthLists(this.ctx.db, scope.projectId, branch.id, query.limit),
      quarantinesOfProject(this.ctx.db, scope.projectId),
      latestQuarantineEvents(this.ctx.db, scope.projectId, query.limit),
    ]);
    const active = quarantines.filter((row) => row.expiresAt === null || row.expiresAt > now);
    const names = await testNames(this.ctx.db, [
      ...active.map((row) => row.testId),
      ...events.map((row) => row.testId),
    ]);
    const quarantined: QuarantinedTest[] = [];
    for (const row of active.sort((a, b) => b.createdAt.localeCompare(a.createdAt)).slice(0, query.limit))
      quarantined.push({
        testId: row.testId,
        name: names.get(row.testId) ?? null,
        quarantine: {
          testId: row.testId,
          reason: row.reason,
          owner: row.owner,
          expiresAt: row.expiresAt,
          createdBy: row.createdBy,
          createdAt: row.createdAt,
        },
        evidence: await this.evidenceOf(row),
      });
    return {
      branchId: branch.id,
      branchName: branch.name,
      flaky: lists.flaky.map(presentHealth),
      failing: lists.failing.map(presentHealth),
      quarantined,
      quarantineEvents: events.map((row) => this.presentEvent(row, names)),
      autoQuarantineAt: this.rules.autoAt ?? null,
    };
  }

  private presentEvent(row: QuarantineEventRow, names: ReadonlyMap<string, string>): QuarantineEvent {
    return {
      testId: row.testId,
      name: names.get(row.testId) ?? null,
      kind: row.kind as QuarantineEvent['kind'],
      automatic: fromFlag(row.automatic),
      actor: row.actor,
      reason: row.reason,
      evidence: readJson(
        evidenceSchema.nullable(),
        row.evidence,
        null,
        `testQuarantineEvents ${row.id}/evidence`,
      ),
      createdAt: row.createdAt,
    };
  }

  /** The branch asked for: an id or a name of the project's, or its default branch. */
  private async branchOf(
    scope: { organizationId: string; projectId: string },
    branch: string | undefined,
  ): Promise<{ id: string; name: string }> {
    let found: { id: string; name: string } | undefined;
    if (branch === undefined) {
      const project = await findProject(this.ctx.db, scope.organizationId, scope.projectId);
      if (project?.defaultBranchId)
        found = await findBranch(this.ctx.db, project.defaultBranchId, scope.projectId);
    } else if (isUuid(branch)) found = await findBranch(this.ctx.db, branch.toLowerCase(), scope.projectId);
    else found = await findBranchByName(this.ctx.db, scope.projectId, branch);
    if (!found) throw appError('BRANCH_NOT_FOUND');
    return { id: found.id, name: found.name };
  }
}
