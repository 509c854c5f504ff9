import { PostgresAdapter, sql } from 'kysely';
import type { Db, Tx } from './index.ts';
import { type WriteTurnRules, WriteTurns } from './write-turns.ts';

/**
 * Concurrency rules for writes (docs/concurrency.md). The embedded SQLite has one connection
 * whose transactions run one after another, so every read made inside a transaction is
 * already serialized and the lock helpers below do nothing there. On PostgreSQL (READ
 * COMMITTED) they take the locks that serialize conflicting operations; a serialization or
 * deadlock failure is retried a bounded number of times by `transaction`.
 */

export const onPostgres = (db: Db | Tx): boolean => db.getExecutor().adapter instanceof PostgresAdapter;

/** SQLSTATEs worth another attempt: serialization_failure, deadlock_detected. */
const retryable = new Set(['40001', '40P01']);
const maxAttempts = 5;

const isRetryable = (error: unknown): boolean =>
  typeof error === 'object' &&
  error !== null &&
  'code' in error &&
  typeof error.code === 'string' &&
  retryable.has(error.code);

/** Per database: the turns its write transactions take (`limitWriteTransactions`). */
const writeTurns = new WeakMap<Db, WriteTurns>();

/**
 * How the write transactions below take turns on `db` (`openDatabase` sets it for both
 * databases, docs/concurrency.md says why); `undefined` lifts it, for the benchmark's
 * comparison with how it was before.
 */
export function limitWriteTransactions(db: Db, rules: WriteTurnRules | undefined): void {
  if (rules) writeTurns.set(db, new WriteTurns(rules));
  else writeTurns.delete(db);
}

/**
 * Runs `work` in a transaction, again (up to 5 attempts, with a short random back-off) when
 * PostgreSQL aborts it as a serialization or deadlock failure. `work` must be safe to run
 * again: everything it read is read inside the transaction. It must not open another of these
 * transactions (it could wait for a turn its own caller holds).
 */
export async function transaction<T>(db: Db, work: (trx: Tx) => Promise<T>): Promise<T> {
  const turns = writeTurns.get(db);
  return turns ? turns.run(() => attempt(db, work)) : attempt(db, work);
}

async function attempt<T>(db: Db, work: (trx: Tx) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(work);
    } catch (error) {
      if (attempt >= maxAttempts || !isRetryable(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
    }
  }
}

/**
 * The test tree of one branch: creating under a directory and duplicating take it shared,
 * deleting takes it exclusive, so a delete sees every child committed before it and a create
 * that commits after it finds its parent gone. Always the first lock of its transaction.
 */
export async function lockTestTree(trx: Tx, branchId: string, mode: 'shared' | 'exclusive'): Promise<void> {
  if (!onPostgres(trx)) return;
  const key = `tests-tree:${branchId}`;
  if (mode === 'shared')
    await sql`select pg_advisory_xact_lock_shared(hashtextextended(${key}, 0))`.execute(trx);
  else await sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(trx);
}
