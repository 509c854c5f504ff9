import fs from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import SqliteDatabase from 'better-sqlite3';
import {
  Kysely,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  PostgresDialect,
  type QueryResult,
  type RootOperationNode,
  SqliteDialect,
  type Transaction,
  type UnknownRow,
} from 'kysely';
import { Migrator } from 'kysely/migration';
import pg from 'pg';
import { type ZodType, z } from 'zod';
import { AppError, appError } from '../../errors.ts';
import { withCompanionWrites } from './companion-writes.ts';
import { limitWriteTransactions } from './locks.ts';
import { migrations } from './migrations/index.ts';
import type { Database } from './schema.ts';
import { startCheckpointer } from './sqlite-checkpointer.ts';
import type { WriteTurnRules } from './write-turns.ts';

export type Db = Kysely<Database>;
export type Tx = Transaction<Database>;
export type DbKind = 'sqlite' | 'postgres';

export interface DatabaseHandle {
  db: Db;
  /**
   * For reads that need no transaction (lists, details): on SQLite a second connection, so a
   * read never queues behind the write transactions that hold the first (WAL lets it read the
   * last commit meanwhile); on PostgreSQL a small pool of its own, for the same reason.
   */
  reads: Db;
  kind: DbKind;
  /** The embedded SQLite connection itself, for hot paths that skip the query builder (auth lookup). */
  sqlite?: SqliteDatabase.Database;
  /** Embedded only: changes whenever anything is written through `db` (see WriteCounter). */
  writes?: WriteCounter;
  /**
   * Where errors of idle pooled connections go (PostgreSQL), and those of the WAL checkpoint
   * thread (SQLite); the app points it at its logger. Until then they are written to stderr:
   * never dropped.
   */
  onPoolError: (error: Error) => void;
  close(): Promise<void>;
}

/**
 * Counts writes made through the query builder, before and after each runs. In the embedded
 * default this process is the database's only writer, so a value read from the database
 * while the counter stays unchanged (and no transaction is open) is still current: the
 * credential cache relies on this to keep revocation effective on the very next request.
 */
export class WriteCounter implements KyselyPlugin {
  version = 0;

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    if (args.node.kind !== 'SelectQueryNode') this.version++;
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    if (args.result.numAffectedRows !== undefined) this.version++;
    return args.result;
  }
}

// Postgres returns bigint columns (count(*)) as strings; every count we read fits a JS number.
pg.types.setTypeParser(20, (value) => Number.parseInt(value, 10));

/** Opens the embedded SQLite file under DATA_DIR, or PostgreSQL when a URL is given, and migrates it. */
export async function openDatabase(options: {
  databaseUrl?: string;
  dataDir: string;
}): Promise<DatabaseHandle> {
  const handle = options.databaseUrl ? openPostgres(options.databaseUrl) : openSqlite(options.dataDir);
  await migrate(handle.db);
  return handle;
}

function openSqlite(dataDir: string): DatabaseHandle {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  // It holds project and webhook secrets and the blob signing key: owner only, also for a file
  // an older version created 0644 (SQLite gives its -wal and -shm files the same mode).
  const filePath = path.join(dataDir, 'stepdeck.sqlite');
  fs.closeSync(fs.openSync(filePath, 'a', 0o600));
  fs.chmodSync(filePath, 0o600);
  for (const companion of [`${filePath}-wal`, `${filePath}-shm`]) {
    if (fs.existsSync(companion)) fs.chmodSync(companion, 0o600);
  }
  const file = new SqliteDatabase(filePath);
  file.pragma('journal_mode = WAL');
  file.pragma('synchronous = NORMAL');
  file.pragma('foreign_keys = ON');
  file.pragma('busy_timeout = 5000');
  // Checkpoints run in their own thread (sqlite-checkpointer.ts), never inside a request's commit.
  file.pragma('wal_autocheckpoint = 0');
  const writes = new WriteCounter();
  const db = new Kysely<Database>({
    dialect: withCompanionWrites(new SqliteDialect({ database: withStatementCache(file) })),
    plugins: [writes],
  });
  limitWriteTransactions(db, writeTurnRules.sqlite);
  const readFile = new SqliteDatabase(filePath);
  readFile.pragma('query_only = ON');
  readFile.pragma('busy_timeout = 5000');
  const reads = new Kysely<Database>({
    dialect: new SqliteDialect({ database: withStatementCache(readFile) }),
  });
  const handle: DatabaseHandle = {
    db,
    reads,
    kind: 'sqlite',
    sqlite: file,
    writes,
    // Embedded: only the checkpoint thread reports here (it failed; SQLite still works).
    onPoolError: (error) => process.stderr.write(`database checkpoint error: ${error.message}\n`),
    close: async () => {
      await checkpointer.stop();
      await reads.destroy();
      await db.destroy();
    },
  };
  const checkpointer = startCheckpointer(filePath, (error) => handle.onPoolError(error));
  return handle;
}

/**
 * Kysely prepares every query anew; preparing costs more than running a small indexed
 * query (it dominated the per-request auth lookup). Statements are reused by SQL text, the
 * most recent 500 kept. Safe because nothing streams (`iterate`) a statement here.
 */
function withStatementCache(file: SqliteDatabase.Database) {
  const statements = new Map<string, SqliteDatabase.Statement>();
  return {
    close: () => file.close(),
    prepare(sql: string) {
      let statement = statements.get(sql);
      if (statement) {
        statements.delete(sql);
      } else {
        statement = file.prepare(sql);
        if (statements.size >= 500) statements.delete(statements.keys().next().value as string);
      }
      statements.set(sql, statement);
      return statement;
    },
  };
}

/** Connections of the PostgreSQL pool behind `db` (writes, and every request's key lookup). */
const writePoolSize = 10;

/**
 * How the write transactions of the tests module (`transaction()` of locks.ts) take turns, so
 * that reads stay quick while many clients write (docs/concurrency.md, "Reads under writes").
 * SQLite: one at a time (SQLite writes one at a time anyway), each in a fresh turn of the event
 * loop (`yieldAfterMs: 0`), so a read that arrived meanwhile is served before the next write's
 * statements: with 10 ms slices (before), a loaded read waited ~14 ms (p50) for the loop before
 * it was even parsed, with a turn per write ~3 ms (bench/reads-under-writes.ts).
 * PostgreSQL: at most 4 at once, well below the pool's 10 connections, so the one-statement
 * queries every request makes on that pool (the API key lookup, the shared rate-limit counter)
 * never queue behind write transactions; more at once does not write faster on a busy server
 * (bench/reads-under-writes.ts compares 4 with 6 in one run: p99 ratio 1.75 against 3.22, and
 * more creates per second with 4, at a load average of 18–23 on the 2-core VM).
 */
export const writeTurnRules = {
  sqlite: { atOnce: 1, yieldAfterMs: 0 },
  postgres: { atOnce: 4 },
} satisfies Record<DbKind, WriteTurnRules>;

function openPostgres(url: string): DatabaseHandle {
  const pool = new pg.Pool({ connectionString: url, max: writePoolSize, application_name: 'stepdeck' });
  const db = new Kysely<Database>({ dialect: withCompanionWrites(new PostgresDialect({ pool })) });
  limitWriteTransactions(db, writeTurnRules.postgres);
  // Connections open on demand, so an idle process holds none of these.
  const readPool = new pg.Pool({ connectionString: url, max: 4, application_name: 'stepdeck' });
  const reads = new Kysely<Database>({ dialect: new PostgresDialect({ pool: readPool }) });
  const handle: DatabaseHandle = {
    db,
    reads,
    kind: 'postgres',
    onPoolError: (error) => process.stderr.write(`database pool error: ${error.message}\n`),
    close: async () => {
      await reads.destroy();
      await db.destroy();
    },
  };
  reportConnectionErrors(pool, (error) => handle.onPoolError(error));
  reportConnectionErrors(readPool, (error) => handle.onPoolError(error));
  return handle;
}

/**
 * A connection the server ends (restart, failover, admin shutdown, a dropped network) emits
 * 'error'; an 'error' event without a listener would crash the process. Idle connections are
 * covered by the pool, which drops them and re-emits on itself. A connection Kysely has checked
 * out is not: pg-pool takes its listener off for as long as the client is out, so a connection
 * lost mid-query or mid-transaction needs one of its own. The query in flight is rejected with
 * the same error (its caller sees it); the pool discards the client when it is released.
 * Each error is reported once: by the pool while idle, by the client while checked out.
 */
function reportConnectionErrors(pool: pg.Pool, report: (error: Error) => void): void {
  const checkedOut = new WeakSet<pg.PoolClient>();
  pool.on('error', report);
  pool.on('connect', (client) => {
    client.on('error', (error) => {
      if (checkedOut.has(client)) report(error);
    });
  });
  pool.on('acquire', (client) => checkedOut.add(client));
  pool.on('release', (_error, client) => checkedOut.delete(client));
}

async function migrate(db: Db): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    // Numbers are reserved as work starts, so one may land after a later one has run on an
    // install (0021 after 0022): it is run then instead of the start refusing the database.
    allowUnorderedMigrations: true,
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((result) => result.status === 'Error');
  if (error || failed) {
    throw new Error(`Database migration ${failed?.migrationName ?? ''} failed: ${String(error)}`);
  }
}

/** JSON columns are stored as text on both databases; these keep the parsing in one place. */
/** Splits a list into parts of at most `size` (statements stay under the databases' parameter limits). */
export const chunk = <T>(items: readonly T[], size: number): T[][] => {
  const out: T[][] = [];
  for (let index = 0; index < items.length; index += size) out.push(items.slice(index, index + size));
  return out;
};

/** The rows of a page (offset and how many), or undefined past the last row. */
export function pageWindow(page: number, limit: number, total: number) {
  const offset = page * limit;
  if (offset >= total) return undefined;
  return { offset, limit: Math.min(limit, total - offset) };
}

export const toJson = (value: unknown): string => JSON.stringify(value ?? null);

/**
 * A JSON column read back through its contract schema (the one way JSON columns are read): a
 * row that is not what the service wrote (edited by hand, restored from elsewhere, truncated)
 * stops the request with a 500 naming the table, row and column, instead of flowing on as a
 * wrong type.
 * `where` is e.g. `schedules 3f…/config`; the message never quotes the stored value.
 */
export function readJson<S extends ZodType>(
  schema: S,
  value: string | null | undefined,
  fallback: z.output<S>,
  where: string,
): z.output<S> {
  if (value === null || value === undefined) return fallback;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw corruptData(where, 'not valid JSON');
  }
  const checked = parsed === null ? undefined : acceptedTexts(schema);
  if (checked?.has(value)) return parsed as z.output<S>;
  const result = schema.safeParse(parsed);
  if (!result.success) throw corruptData(where, z.prettifyError(result.error).replaceAll('\n', '; '));
  if (checked && value.length <= maxAcceptedLength && isDeepStrictEqual(result.data, parsed)) {
    if (checked.size >= maxAcceptedTexts) checked.clear();
    checked.add(value);
  }
  return result.data;
}

/**
 * Short JSON texts a schema already accepted unchanged (its output deep-equals the parsed text,
 * so no default, transform or stripped key): reading the same text again, as a list of 10000
 * tests with the same `{}` config does, needs only `JSON.parse`. Keyed by the schema without its
 * nullable/optional wrappers (call sites build those per call; a non-null value is checked the
 * same by the inner schema). Bounded: cleared when full.
 */
const accepted = new WeakMap<ZodType, Set<string>>();
const maxAcceptedTexts = 1024;
const maxAcceptedLength = 1024;

function acceptedTexts(schema: ZodType): Set<string> {
  let inner: ZodType = schema;
  while (inner instanceof z.ZodNullable || inner instanceof z.ZodOptional) inner = inner.unwrap() as ZodType;
  let texts = accepted.get(inner);
  if (!texts) {
    texts = new Set();
    accepted.set(inner, texts);
  }
  return texts;
}

/** Stored data the service cannot have written: a server fault, named so it can be repaired. */
export class CorruptDataError extends AppError {}
const corruptData = (where: string, detail: string) =>
  new CorruptDataError('CORRUPT_DATA', appError('CORRUPT_DATA', where, detail).message);

export const toFlag = (value: boolean): number => (value ? 1 : 0);
export const fromFlag = (value: number | boolean | null | undefined): boolean => Boolean(value);
