import type { TriageClass } from '@stepdeck/contract';
import type { ProcessQueue } from '../../adapters/queue/index.ts';

export const dispatchJob = 'runs.dispatch';

/** This process's run dispatcher (dispatcher.ts), as the runtime and the metrics use it. */
export interface RunDispatcher {
  /** There may be work: claim now (or right after the claiming in progress). */
  wake(): void;
  /**
   * Stops claiming, lets the runs executing here finish within `graceMs`, then fails the
   * others with `shutdownRunnerError` (dispatcher.ts); resolves when nothing is in flight, so
   * the queue and the database can close right after.
   */
  stop(graceMs: number): Promise<void>;
  /** Runs executing in this process now (metrics). */
  readonly busy: number;
  readonly slots: number;
}

/** Where one `assertScreenshot` of a run's test runs: its step, browser and viewport (`1280x720`). */
export interface VisualCheckKey {
  testId: string;
  stepId: string;
  browser: string;
  viewport: string;
}

/** A screenshot of a run that is not its baseline (`new` or `changed`), with its stored pictures. */
export interface VisualCheckResult extends VisualCheckKey {
  testName: string;
  stepName: string;
  status: 'new' | 'changed';
  diffPixels: number;
  ratio: number;
  width: number;
  height: number;
  actualKey: string | null;
  diffKey: string | null;
}

/** The stored pictures (blob keys) of one recorded visual change of a run. */
export interface VisualChangePictures {
  testId: string;
  actualKey: string | null;
  diffKey: string | null;
}

/**
 * The visual checks of runs, provided by the visual module when it starts (runs never import
 * it): the baselines handed to a run before it starts, and what it found recorded after.
 */
export interface RunVisualChecks {
  baselinesFor(
    run: { organizationId: string; projectId: string; branchId: string },
    checks: VisualCheckKey[],
  ): Promise<Map<VisualCheckKey, Buffer>>;
  record(
    run: { id: string; organizationId: string; projectId: string; branchId: string },
    results: VisualCheckResult[],
  ): Promise<void>;
  /** Bytes of the organization's stored baselines, counted in its artifact quota. */
  storedBytes(organizationId: string): Promise<number>;
  /** The pictures of each change the run recorded (the run report's thumbnails link them). */
  changePictures(run: { id: string; organizationId: string }): Promise<VisualChangePictures[]>;
}

/**
 * The triage of a run's failures, provided by the history module when it starts (history
 * imports runs, so runs reach it only through this port): each failed test's class by test id.
 */
export interface RunFailureTriage {
  classesOf(
    scope: { organizationId: string; projectId: string },
    runId: string,
  ): Promise<ReadonlyMap<string, TriageClass>>;
}

interface WakeLog {
  warn(obj: object | string, msg?: string): void;
}

/**
 * Per-process state of the runs module, created with the app (it is `ctx.runs`, and the
 * runs plugin decorates the Fastify instance with it): the local run dispatcher while one is
 * started, the aborts of the runs it executes, and the wake-ups sent to remote dispatchers
 * through the process's one queue.
 */
export class RunsRuntime {
  /** This process's run dispatcher while background work runs (the runs plugin starts and stops it). */
  dispatcher: RunDispatcher | undefined;
  /**
   * How long closing the app lets running runs finish before failing them: 0 (abort at once)
   * unless the process is shutting down on a signal, which sets SHUTDOWN_GRACE_MS.
   */
  shutdownGraceMs = 0;
  readonly aborts = new Map<string, AbortController>();
  /** Baselines and visual changes of runs: set by the visual module, absent without it. */
  visualChecks: RunVisualChecks | undefined;
  /** Classes of a run's failures for its report: set by the history module, absent without it. */
  failureTriage: RunFailureTriage | undefined;
  private readonly queue: ProcessQueue;
  private readonly log: WakeLog;
  private readonly remote: boolean;

  constructor(options: { queue: ProcessQueue; log: WakeLog; remoteRunners: boolean }) {
    this.queue = options.queue;
    this.log = options.log;
    this.remote = options.remoteRunners;
  }

  /** Tells the dispatchers that there is work: the local one directly, remote ones through pg-boss. */
  async wake(): Promise<void> {
    this.dispatcher?.wake();
    if (!this.remote) return;
    try {
      await (await this.queue.open()).send(dispatchJob, {});
    } catch (error) {
      // Runners also poll; a lost wake-up (or one sent while closing) only delays the run.
      this.log.warn({ err: error }, 'could not publish a run wake-up');
    }
  }

  /**
   * Aborts a run this process executes, and every batch of it executed here (keys
   * `runId#position`), on cancel or shutdown; false when none runs here.
   */
  abort(runId: string, reason: Error): boolean {
    let found = false;
    for (const [key, controller] of this.aborts) {
      if (key !== runId && !key.startsWith(`${runId}#`)) continue;
      controller.abort(reason);
      found = true;
    }
    return found;
  }
}

/** Kept for callers that take the context: the runs runtime of the app. */
export const runtimeOf = (ctx: { runs: RunsRuntime }): RunsRuntime => ctx.runs;
