import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { AppContext } from '../../context.ts';
import type { OwnPort } from '../../runner/egress.ts';
import { concurrencyCapOf } from '../console/public.ts';
import { type ClaimedUnit, claimBatch, parallelsInUse, releaseUnit } from './batches-repository.ts';
import { egress, executor } from './deps.ts';
import { RunnerShutdownError } from './errors.ts';
import { executeRun } from './execute.ts';
import { executeUnit } from './execute-batch.ts';
import { failRun } from './finish.ts';
import { loadStartupCost } from './planner.ts';
import { sweepDeadRunProcesses } from './processes.ts';
import { recoverBatches } from './recovery.ts';
import {
  claimedRunsToRecover,
  claimedStatuses,
  claimPendingRun,
  lockDispatch,
  oldestPendingRuns,
  organizationOfRun,
  releaseRunClaim,
} from './repository.ts';
import { dispatchJob } from './runtime.ts';

/**
 * Runs (or batches of orchestrated runs) one process executes at a time, across
 * organizations (each org is also capped): `RUNNER_SLOTS`, default 4.
 */
export const defaultRunnerSlots = 4;
/**
 * A run whose runner has not beaten for this long belongs to a dead process (default of
 * `RUNNER_STALE_HEARTBEAT_MS`; heartbeats are sent every 500 ms).
 */
export const staleHeartbeatMs = 15_000;
const pollMs = 1000;
/** What a run ended by a shutdown reports (after SHUTDOWN_GRACE_MS). */
export const shutdownRunnerError =
  'Runner failed: the service was shut down before the run finished (SHUTDOWN_GRACE_MS elapsed)';

export interface Runner {
  /**
   * Stops claiming, lets the runs executing here finish within `graceMs`, then ends the
   * others as failed with {@link shutdownRunnerError}; resolves when nothing is in flight,
   * so the queue and the database can close right after.
   */
  stop(graceMs: number): Promise<void>;
  /** Runs executing in this process now (metrics). */
  readonly busy: number;
  readonly slots: number;
}

/**
 * The runner of this process: claims pending runs (pending → queued) while the run's
 * organization has a free parallel, executes them (queued → running → completed/failed),
 * and recovers runs left behind by dead processes. Claims are conditional UPDATEs under a
 * dispatch lock, so with several workers each run is executed exactly once and the cap
 * holds across all of them.
 */
export async function startRunner(
  ctx: AppContext,
  options: {
    slots?: number;
    embedded: boolean;
    /** The ports this process listens on once it does (HTTP, SMTP): no run may reach them. */
    listeners?: () => OwnPort[];
  },
): Promise<Runner> {
  const runtime = ctx.runs;
  const runnerId = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const slots = options.slots ?? ctx.config.runnerSlots ?? defaultRunnerSlots;
  // Before any run: how runs are isolated, proved to work here (runner/isolation.ts).
  const isolation = await (await executor()).configureIsolation(ctx.config.runnerIsolation);
  if (isolation.warning) ctx.log.warn({ isolation: isolation.mode }, isolation.warning);
  if (ctx.config.runnerStandbyIdleMs !== undefined)
    (await executor()).configureStandbyRunners({ idleMs: ctx.config.runnerStandbyIdleMs });
  // Every run's way out, checked against the egress rules (runner/egress.ts), until stop().
  const egressProxy = await egress.startEgressProxy({
    deny: ctx.config.runnerEgress?.deny ?? [],
    allow: ctx.config.runnerEgress?.allow ?? [],
    ownPorts: () => ownPorts(ctx, options.listeners),
  });
  // Only speed is at stake: without it, the first runs are planned with the fallback.
  await loadStartupCost(ctx.db).catch((error: unknown) =>
    ctx.log.warn({ err: error }, 'could not read the stored start-up cost'),
  );
  const executing = new Map<Promise<void>, string>();
  /** Slot numbers in use here: each job holds one, named `runnerId#n` in the run's shards. */
  const held = new Set<number>();
  let stopped = false;
  let pumping: Promise<void> | undefined;
  let recovering: Promise<void> | undefined;
  let again = false;

  // The webhooks plugin (which depends on this one) subscribed to run.finished when it was
  // registered, before any onReady: the failures found here reach it.
  await recover(ctx, options.embedded ? 'all' : 'stale');
  // Processes and folders of runs whose runner on this host died (SIGKILL, crash).
  await sweepDeadRunProcesses(ctx, runnerId).catch((error: unknown) =>
    ctx.log.error({ err: error }, 'could not clean up after dead runs'),
  );

  const pump = () => {
    if (stopped) return;
    if (pumping) {
      again = true;
      return;
    }
    // Cleared in a `.finally` (always a later tick): when every slot is busy the body ends
    // without awaiting, and clearing inside it would run before this assignment, leaving a
    // settled `pumping` that turns every later pump away.
    pumping = (async () => {
      try {
        do {
          again = false;
          while (!stopped && executing.size < slots) {
            let number = 0;
            while (held.has(number)) number += 1;
            const slot = `${runnerId}#${number}`;
            const claim = await claimNext(ctx, runnerId, slot);
            if (!claim) break;
            const runId = claim.runId;
            if (stopped) {
              // Claimed while the app was closing: hand it back for another runner.
              if (claim.unit) await releaseUnit(ctx.db, claim.unit, runnerId);
              else await releaseRunClaim(ctx.db, runId, runnerId);
              break;
            }
            held.add(number);
            const parallels = options.embedded ? Math.min(claim.cap, slots) : claim.cap;
            const work = claim.unit
              ? executeUnit(ctx, claim.unit, runnerId)
              : executeRun(ctx, runId, { runnerId, slot, parallels });
            const job = work
              .catch((error) => ctx.log.error({ err: error, runId }, 'run execution crashed'))
              .finally(() => {
                executing.delete(job);
                held.delete(number);
                pump();
              });
            executing.set(job, runId);
          }
        } while (again && !stopped);
      } catch (error) {
        if (!stopped) ctx.log.error({ err: error }, 'run dispatch failed');
      }
    })().finally(() => {
      pumping = undefined;
    });
  };
  runtime.pump = pump;

  const queue = ctx.config.databaseUrl ? await ctx.queue.open('work') : undefined;
  await queue?.work(dispatchJob, async () => pump());
  const timer = setInterval(() => {
    pump();
    if (options.embedded || recovering) return;
    recovering = Promise.all([recover(ctx, 'stale'), recoverBatches(ctx)])
      .then(async ([failed, returned]) => {
        if (failed === 0 && returned === 0) return;
        pump();
        await sweepDeadRunProcesses(ctx, runnerId);
      })
      .catch((error) => {
        if (!stopped) ctx.log.error({ err: error }, 'run recovery failed');
      })
      .finally(() => {
        recovering = undefined;
      });
  }, pollMs);
  timer.unref();
  pump();

  return {
    slots,
    get busy() {
      return executing.size;
    },
    // Stops in order and awaits everything in flight, so the database and pg-boss can close
    // right after (no query left running, no timer firing later).
    async stop(graceMs) {
      stopped = true;
      runtime.pump = undefined;
      clearInterval(timer);
      // No more wake-ups: pg-boss stops handing this process dispatch jobs.
      await queue?.offWork(dispatchJob).catch((error: unknown) => {
        ctx.log.warn({ err: error }, 'could not stop taking run wake-ups');
      });
      while (pumping || recovering) await Promise.allSettled([pumping, recovering]);
      if (executing.size > 0) {
        ctx.log.info({ runs: executing.size, graceMs }, 'waiting for running runs to finish');
        let graceTimer: NodeJS.Timeout | undefined;
        await Promise.race([
          Promise.allSettled([...executing.keys()]),
          new Promise((resolve) => {
            graceTimer = setTimeout(resolve, graceMs);
          }),
        ]);
        clearTimeout(graceTimer);
      }
      const ended = [...new Set(executing.values())];
      for (const runId of ended) runtime.abort(runId, new RunnerShutdownError());
      while (executing.size > 0) await Promise.allSettled([...executing.keys()]);
      // An aborted run stops without an outcome: it ends as failed, saying why.
      for (const runId of ended) await failRun(ctx, runId, shutdownRunnerError, [...claimedStatuses]);
      // The standby runners waiting for this runner's next run (runner/standby.ts).
      (await executor()).stopStandbyRunners();
      await egressProxy.close();
    },
  };
}

/** The service's listeners: PORT and SMTP_PORT as configured (those of an API process beside a worker) and as bound. */
function ownPorts(ctx: AppContext, listeners: (() => OwnPort[]) | undefined): OwnPort[] {
  const configured = [
    { port: ctx.config.port, name: 'HTTP' },
    { port: ctx.config.smtpPort, name: 'SMTP' },
  ];
  return [...configured, ...(listeners?.() ?? [])].filter((own) => own.port > 0);
}

interface Claim {
  runId: string;
  /** A batch (or merge) of a started run; absent for a whole pending run. */
  unit?: ClaimedUnit;
  /** The organization's concurrency cap. */
  cap: number;
}

/**
 * Under the dispatch lock: the next batch of a started run (started runs finish first), else
 * the oldest pending run, in both cases only while the organization has a free parallel.
 */
async function claimNext(ctx: AppContext, runnerId: string, slot: string): Promise<Claim | undefined> {
  return ctx.db.transaction().execute(async (tx) => {
    await lockDispatch(tx, ctx.database.kind, 'runs:dispatch');
    const caps = new Map<string, number>();
    const capOf = async (organizationId: string) => {
      const known = caps.get(organizationId);
      if (known !== undefined) return known;
      const cap = await concurrencyCapOf(tx, organizationId);
      caps.set(organizationId, cap);
      return cap;
    };
    const now = ctx.clock.now().toISOString();
    const unit = await claimBatch(tx, { runnerId, slot, now }, capOf);
    if (unit) {
      const run = await organizationOfRun(tx, unit.runId);
      return { runId: unit.runId, unit, cap: await capOf(run.organizationId) };
    }
    const pending = await oldestPendingRuns(tx);
    const full = new Set<string>();
    for (const run of pending) {
      if (full.has(run.organizationId)) continue;
      const cap = await capOf(run.organizationId);
      if ((await parallelsInUse(tx, run.organizationId)) >= cap) {
        full.add(run.organizationId);
        continue;
      }
      if (await claimPendingRun(tx, run.id, runnerId, now)) return { runId: run.id, cap };
    }
    return undefined;
  });
}

/**
 * Runs `queued`/`running` in a process that died become `failed`. The embedded service is
 * the only runner, so at start every such run is orphaned; workers judge by heartbeat.
 */
export async function recover(ctx: AppContext, which: 'all' | 'stale'): Promise<number> {
  const orphans = await claimedRunsToRecover(
    ctx.db,
    which === 'stale' ? Date.now() - (ctx.config.runnerStaleHeartbeatMs ?? staleHeartbeatMs) : undefined,
  );
  let failed = 0;
  for (const orphan of orphans) {
    const done = await failRun(
      ctx,
      orphan.id,
      'Runner failed: the process executing this run stopped before it finished',
      [...claimedStatuses],
    );
    if (done) failed += 1;
  }
  return failed;
}
