import type { EventEmitter } from 'node:events';
import type { LeftOutTest, VisualChangeSummary } from '@stepdeck/contract';
import type { BlobStore } from './adapters/blobs/index.ts';
import type { DatabaseHandle, Db } from './adapters/db/index.ts';
import type { ProcessQueue } from './adapters/queue/index.ts';
import type { Clock } from './clock.ts';
import type { Config } from './config.ts';
import type { Metrics } from './metrics.ts';
import type { BranchCopier, PasswordSignInGuard } from './modules/accounts/public.ts';
import type { PresetDeleteGuard } from './modules/presets/public.ts';
import type { RunsRuntime } from './modules/runs/public.ts';
import type { TestDeleteGuard } from './modules/tests/public.ts';

/**
 * A run that reached `completed` or `failed`, with everything a webhook body needs, so the
 * webhooks module never reads run tables. Not emitted for `cancelled`.
 */
export interface RunFinished {
  organizationId: string;
  runId: string;
  name: string;
  status: 'completed' | 'failed';
  startedAt: string | null;
  finishedAt: string;
  durationMs: number;
  trigger:
    | { type: 'schedule'; schedule: string }
    | { type: 'apiKey'; name: string }
    | { type: 'manual'; email: string };
  project: { id: string; name: string };
  branch: { id: string; name: string };
  target: { type: 'test' | 'directory' | 'tag'; id: string; name: string };
  stats: { passed: number; failed: number; skipped: number; total: number };
  tests: Array<{
    name: string;
    status: string;
    durationMs: number;
    errorMessage: string | null;
    errorLocation: string | null;
  }>;
  /** Screenshots that are not their baseline (`new`, `changed`). */
  visualChanges?: VisualChangeSummary[];
  /** The environment the run used, by name; absent for none. */
  environment?: string;
  /** The schedule that fired the run; null for other triggers. */
  scheduleId?: string | null;
  /** The target's draft and archived tests the run left out (the run's `metadata.leftOut`). */
  leftOut?: { count: number; tests: LeftOutTest[] };
}

/** Events between modules inside one process (the runner tells webhooks a run ended). */
export interface DomainEvents {
  'run.finished': [RunFinished];
}

/** Everything a module needs, built once by the app and handed to each module. */
export interface AppContext {
  config: Config;
  database: DatabaseHandle;
  db: Db;
  blobs: BlobStore;
  clock: Clock;
  events: EventEmitter<DomainEvents>;
  /** The process's one job queue (runs, webhooks and schedules share it). */
  queue: ProcessQueue;
  /** The runs module's per-process state: wake-ups and the aborts of runs executing here. */
  runs: RunsRuntime;
  /** The app's Prometheus metrics (GET /metrics). */
  metrics: Metrics;
  /** Per-branch state copiers run when the console creates a branch (tests add theirs). */
  branchCopiers: BranchCopier[];
  /**
   * Refusals a module adds to another's delete, run in its transaction before anything goes:
   * the schedules module refuses to lose a test or a preset it uses. Registered on start.
   */
  deleteGuards: { tests: TestDeleteGuard[]; presets: PresetDeleteGuard[] };
  /** Checks a module adds to the password sign-in (single sign-on refuses its members'). */
  signInGuards: PasswordSignInGuard[];
  /** The app's pino logger (the worker's too), seen through the calls modules make. */
  log: {
    info(obj: object | string, msg?: string): void;
    warn(obj: object | string, msg?: string): void;
    error(obj: object | string, msg?: string): void;
  };
}
