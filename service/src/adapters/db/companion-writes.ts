import { AsyncLocalStorage } from 'node:async_hooks';
import {
  type AbortableOperationOptions,
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';

/**
 * A statement that must commit together with the first change a unit of work makes (the audit
 * entry of a request: "no change without its entry"), without the code making the change
 * knowing about it. `state`: `pending` until a transaction carries it, `carried` while one
 * does, `written` once that transaction committed (a rollback puts it back to `pending`),
 * `closed` when the unit of work ended (later writes carry nothing).
 */
export interface CompanionWrite {
  readonly statement: CompiledQuery;
  state: 'pending' | 'carried' | 'written' | 'closed';
}

const scope = new AsyncLocalStorage<CompanionWrite>();

/** Runs `work` (and everything it starts) with `companion` riding on its first write. */
export function withCompanionWrite<T>(companion: CompanionWrite, work: () => T): T {
  return scope.run(companion, work);
}

const writeKinds = new Set(['InsertQueryNode', 'UpdateQueryNode', 'DeleteQueryNode', 'MergeQueryNode']);
const rawWrite = /^\s*(insert|update|delete|replace|merge)\b/i;

/** Whether a statement changes data (a raw statement is judged by its first word). */
const isWrite = (query: CompiledQuery): boolean =>
  writeKinds.has(query.query.kind) || (query.query.kind === 'RawNode' && rawWrite.test(query.sql));

/**
 * The connection as Kysely sees it: a lone write outside a transaction, while a companion is
 * pending, becomes BEGIN; companion; write; COMMIT on this connection.
 */
class CompanionConnection implements DatabaseConnection {
  readonly inner: DatabaseConnection;
  inTransaction = false;
  /** The companion the open transaction carries. */
  carrying: CompanionWrite | undefined;

  constructor(inner: DatabaseConnection) {
    this.inner = inner;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const companion = scope.getStore();
    if (companion?.state !== 'pending' || this.inTransaction || !isWrite(query)) {
      return this.inner.executeQuery<R>(query);
    }
    companion.state = 'carried';
    await this.inner.executeQuery(CompiledQuery.raw('begin'));
    try {
      await this.inner.executeQuery(companion.statement);
      const result = await this.inner.executeQuery<R>(query);
      await this.inner.executeQuery(CompiledQuery.raw('commit'));
      companion.state = 'written';
      return result;
    } catch (error) {
      if (companion.state === 'carried') companion.state = 'pending';
      await this.inner.executeQuery(CompiledQuery.raw('rollback')).catch(() => undefined);
      throw error;
    }
  }

  streamQuery<R>(query: CompiledQuery, chunkSize: number, options?: AbortableOperationOptions) {
    return this.inner.streamQuery<R>(query, chunkSize, options);
  }
}

const innerOf = (connection: DatabaseConnection): DatabaseConnection =>
  connection instanceof CompanionConnection ? connection.inner : connection;

/** The driver: the first transaction opened under a pending companion writes it right after BEGIN. */
class CompanionDriver implements Driver {
  private readonly inner: Driver;

  constructor(inner: Driver) {
    this.inner = inner;
  }

  init(options?: AbortableOperationOptions) {
    return this.inner.init(options);
  }

  async acquireConnection(options?: AbortableOperationOptions): Promise<DatabaseConnection> {
    return new CompanionConnection(await this.inner.acquireConnection(options));
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    await this.inner.beginTransaction(innerOf(connection), settings);
    if (!(connection instanceof CompanionConnection)) return;
    connection.inTransaction = true;
    const companion = scope.getStore();
    if (companion?.state !== 'pending') return;
    companion.state = 'carried';
    connection.carrying = companion;
    try {
      await connection.inner.executeQuery(companion.statement);
    } catch (error) {
      // Kysely rolls back only a transaction whose BEGIN succeeded: this one is ours to end.
      connection.carrying = undefined;
      connection.inTransaction = false;
      if (companion.state === 'carried') companion.state = 'pending';
      await this.inner.rollbackTransaction(connection.inner).catch(() => undefined);
      throw error;
    }
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const carrying = connection instanceof CompanionConnection ? connection.carrying : undefined;
    try {
      await this.inner.commitTransaction(innerOf(connection));
      if (carrying?.state === 'carried') carrying.state = 'written';
    } catch (error) {
      if (carrying?.state === 'carried') carrying.state = 'pending';
      throw error;
    } finally {
      this.ended(connection);
    }
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const carrying = connection instanceof CompanionConnection ? connection.carrying : undefined;
    if (carrying?.state === 'carried') carrying.state = 'pending';
    this.ended(connection);
    await this.inner.rollbackTransaction(innerOf(connection));
  }

  private ended(connection: DatabaseConnection) {
    if (!(connection instanceof CompanionConnection)) return;
    connection.inTransaction = false;
    connection.carrying = undefined;
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) {
    if (!this.inner.savepoint) throw new Error('savepoints are not supported by this driver');
    await this.inner.savepoint(innerOf(connection), name, compile);
  }

  async rollbackToSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ) {
    if (!this.inner.rollbackToSavepoint) throw new Error('savepoints are not supported by this driver');
    await this.inner.rollbackToSavepoint(innerOf(connection), name, compile);
  }

  async releaseSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ) {
    if (!this.inner.releaseSavepoint) throw new Error('savepoints are not supported by this driver');
    await this.inner.releaseSavepoint(innerOf(connection), name, compile);
  }

  releaseConnection(connection: DatabaseConnection, options?: AbortableOperationOptions) {
    return this.inner.releaseConnection(innerOf(connection), options);
  }

  destroy(options?: AbortableOperationOptions) {
    return this.inner.destroy(options);
  }
}

/** `dialect` whose driver carries companion writes (see `CompanionWrite`); otherwise unchanged. */
export function withCompanionWrites(dialect: Dialect): Dialect {
  return {
    createDriver: () => new CompanionDriver(dialect.createDriver()),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createAdapter: () => dialect.createAdapter(),
    // biome-ignore lint/suspicious/noExplicitAny: the introspector takes any Kysely instance
    createIntrospector: (db: Kysely<any>) => dialect.createIntrospector(db),
  };
}
