import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { defaultRunnerSlots } from '../../config.ts';
import type { AppContext } from '../../context.ts';
import { Poller } from '../../poller.ts';
import type { EgressRules, OwnPort } from '../../runner/egress.ts';
import { startEgressProxy } from '../../runner/egress-proxy.ts';
import { configureIsolation, configureStandbyRunners, stopStandbyRunners } from '../../runner/executor.ts';
import { concurrencyCapOf } from '../accounts/public.ts';
import { effectiveInstallSettings } from '../install-settings/public.ts';
import { RunnerShutdownError } from './errors.ts';
import { executeRun } from './execute.ts';
import { executeUnit } from './execute-batch.ts';
import { loadStartupCost } from './planner.ts';
import { sweepDeadRunProcesses } from './processes.ts';
import { claimNext } from './queue/claim-repository.ts';
import { failRun } from './queue/end-repository.ts';
import { recover, recoverUnits } from './queue/recover-repository.ts';
import { releaseRunClaim, releaseUnit } from './queue/release-repository.ts';
import { dispatchJob, type RunDispatcher } from './runtime.ts';

/**
 * Runs (or batches of orchestrated runs) one process executes at a time, across
 * organizations (each org is also capped): `RUNNER_SLOTS`, default 4.
 */
export { defaultRunnerSlots };

/** How often a dispatcher looks for work and for dead holders' work without being woken. */
const pollMs = 1000;
/** What a run ended by a shutdown reports (after SHUTDOWN_GRACE_MS). */
export const shutdownRunnerError =
  'Runner failed: the service was shut down before the run finished (SHUTDOWN_GRACE_MS elapsed)';

/**
 * The run dispatcher of this process: claims work (queue/claim-repository.ts) into its free
 * slots while the organization has a free parallel, executes it (execute.ts, execute-batch.ts),
 * and recovers the work of dead processes (queue/recover-repository.ts). Claims are
 * conditional UPDATEs under a dispatch lock, so with several workers each run is executed
 * exactly once and the cap holds across all of them.
 */
export async function startRunDispatcher(
  ctx: AppContext,
  options: {
    slots?: number;
    embedded: boolean;
    /** The ports this process listens on once it does (HTTP, SMTP): no run may reach them. */
    listeners?: () => OwnPort[];
  },
): Promise<RunDispatcher> {
  const runtime = ctx.runs;
  const runnerId = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const slots = options.slots ?? ctx.config.runnerSlots ?? defaultRunnerSlots;
  // Before any run: how runs are isolated, proved to work here (runner/isolation.ts).
  const isolation = await configureIsolation(ctx.config.runnerIsolation);
  if (isolation.warning) ctx.log.warn({ isolation: isolation.mode }, isolation.warning);
  if (ctx.config.runnerStandbyIdleMs !== undefined)
    configureStandbyRunners({ idleMs: ctx.config.runnerStandbyIdleMs });
  // Every run's way out, checked against the egress rules (runner/egress.ts), until stop().
  // The install admins' rules (install settings) join the environment's; read again before each
  // run starts, so a change applies to the runs that start after it.
  let installEgress: EgressRules = (await installEgressRules(ctx)) ?? { deny: [], allow: [] };
  const egressProxy = await startEgressProxy({
    deny: ctx.config.runnerEgress?.deny ?? [],
    allow: ctx.config.runnerEgress?.allow ?? [],
    ownPorts: () => ownPorts(ctx, options.listeners),
    extraRules: () => installEgress,
  });
  // Only speed is at stake: without it, the first runs are planned with the fallback.
  await loadStartupCost(ctx.db).catch((error: unknown) =>
    ctx.log.warn({ err: error }, 'could not read the stored start-up cost'),
  );
  const executing = new Map<Promise<void>, string>();
  /** Slot numbers in use here: each job holds one, named `runnerId#n` in the run's shards. */
  const held = new Set<number>();

  // The webhooks plugin (which depends on this one) subscribed to run.finished when it was
  // registered, before any onReady: the failures found here reach it.
  await recover(ctx, options.embedded ? 'all' : 'stale');
  // Processes and folders of runs whose runner on this host died (SIGKILL, crash).
  await sweepDeadRunProcesses(ctx, runnerId).catch((error: unknown) =>
    ctx.log.error({ err: error }, 'could not clean up after dead runs'),
  );

  /** Fills the free slots, one claim at a time; a job ending wakes it again. */
  const claims: Poller = new Poller({
    intervalMs: pollMs,
    pass: async () => {
      while (!claims.stopped && executing.size < slots) {
        let number = 0;
        while (held.has(number)) number += 1;
        const slot = `${runnerId}#${number}`;
        const claim = await claimNext(
          ctx.db,
          ctx.database.kind,
          { runnerId, slot, now: ctx.clock.now().toISOString() },
          concurrencyCapOf,
        );
        if (!claim) break;
        const runId = claim.runId;
        if (claims.stopped) {
          // Claimed while the app was closing: hand it back for another runner.
          if (claim.unit) await releaseUnit(ctx.db, claim.unit, runnerId);
          else await releaseRunClaim(ctx.db, runId, runnerId);
          break;
        }
        held.add(number);
        installEgress = (await installEgressRules(ctx)) ?? installEgress;
        const parallels = options.embedded ? Math.min(claim.cap, slots) : claim.cap;
        const work = claim.unit
          ? executeUnit(ctx, claim.unit, runnerId)
          : executeRun(ctx, runId, { runnerId, slot, parallels });
        const job = work
          .catch((error) => ctx.log.error({ err: error, runId }, 'run execution crashed'))
          .finally(() => {
            executing.delete(job);
            held.delete(number);
            claims.wake();
          });
        executing.set(job, runId);
      }
    },
    onError: (error) => {
      if (!claims.stopped) ctx.log.error({ err: error }, 'run dispatch failed');
    },
  });
  /** Workers only: the embedded service recovered everything at start and is the only runner. */
  const recovery: Poller | undefined = options.embedded
    ? undefined
    : new Poller({
        intervalMs: pollMs,
        pass: async () => {
          const [failed, returned] = await Promise.all([recover(ctx, 'stale'), recoverUnits(ctx)]);
          if (failed === 0 && returned === 0) return;
          claims.wake();
          await sweepDeadRunProcesses(ctx, runnerId);
        },
        onError: (error) => {
          if (!recovery?.stopped) ctx.log.error({ err: error }, 'run recovery failed');
        },
      });

  const queue = ctx.config.databaseUrl ? await ctx.queue.open('work') : undefined;
  await queue?.work(dispatchJob, async () => claims.wake());
  claims.start();
  recovery?.start();

  return {
    slots,
    get busy() {
      return executing.size;
    },
    wake: () => claims.wake(),
    // Stops in order and awaits everything in flight, so the database and pg-boss can close
    // right after (no query left running, no timer firing later).
    async stop(graceMs) {
      const claimsStopped = claims.stop();
      const recoveryStopped = recovery?.stop();
      // No more wake-ups: pg-boss stops handing this process dispatch jobs.
      await queue?.offWork(dispatchJob).catch((error: unknown) => {
        ctx.log.warn({ err: error }, 'could not stop taking run wake-ups');
      });
      await Promise.all([claimsStopped, recoveryStopped]);
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
      for (const runId of ended) await failRun(ctx, runId, shutdownRunnerError);
      // The standby runners waiting for this runner's next run (runner/standby.ts).
      stopStandbyRunners();
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

/** The install settings' egress rules; undefined (the last ones stay) when they cannot be read. */
async function installEgressRules(ctx: AppContext): Promise<EgressRules | undefined> {
  try {
    return (await effectiveInstallSettings(ctx.db)).runnerEgress;
  } catch (error) {
    ctx.log.error({ err: error }, 'could not read the install egress rules');
    return undefined;
  }
}
