import { setImmediate as nextLoopTurn } from 'node:timers/promises';
import pLimit, { type LimitFunction } from 'p-limit';

/** How the write transactions of one database take turns (docs/concurrency.md, "Reads under writes"). */
export interface WriteTurnRules {
  /** At most this many run at once; the rest wait in memory, holding no connection. */
  atOnce: number;
  /**
   * Embedded SQLite: once the queued transactions have run back to back for this long, the
   * next waits for a fresh turn of the event loop, so requests in between (reads) are served.
   * 0: every transaction waits for a fresh turn.
   */
  yieldAfterMs?: number;
}

/**
 * A queue of write transactions. On SQLite a transaction runs synchronously on the event loop,
 * and the queued ones would otherwise run one after another in a single turn of the loop
 * (each handing the connection to the next in a microtask): with 50 clients writing, a read
 * waited a third of a second for that turn to end. On PostgreSQL the cap keeps transactions
 * from taking every connection of the pool.
 */
export class WriteTurns {
  private readonly limit: LimitFunction;
  private readonly yieldAfterMs: number | undefined;
  private sliceStartedAt = performance.now();

  constructor(rules: WriteTurnRules) {
    this.limit = pLimit(rules.atOnce);
    this.yieldAfterMs = rules.yieldAfterMs;
  }

  run<T>(work: () => Promise<T>): Promise<T> {
    return this.limit(async () => {
      if (this.yieldAfterMs !== undefined && performance.now() - this.sliceStartedAt >= this.yieldAfterMs) {
        await nextLoopTurn();
        this.sliceStartedAt = performance.now();
      }
      return work();
    });
  }
}
