import type { EventEmitter } from 'node:events';
import type { BlobStore } from './adapters/blobs/index.ts';
import type { DatabaseHandle, Db } from './adapters/db/index.ts';
import type { Clock } from './clock.ts';
import type { Config } from './config.ts';
import type { BranchCopier } from './modules/console/service.ts';

/** Events between modules inside one process (the runner tells webhooks a run ended). */
export interface DomainEvents {
  'run.finished': [{ runId: string; status: 'completed' | 'failed' }];
}

/** Everything a module needs, built once by the app and handed to each module. */
export interface AppContext {
  config: Config;
  database: DatabaseHandle;
  db: Db;
  blobs: BlobStore;
  clock: Clock;
  events: EventEmitter<DomainEvents>;
  /** Per-branch state copiers run when the console creates a branch (tests add theirs). */
  branchCopiers: BranchCopier[];
  log: {
    info(obj: object | string, msg?: string): void;
    warn(obj: object | string, msg?: string): void;
    error(obj: object | string, msg?: string): void;
  };
}
