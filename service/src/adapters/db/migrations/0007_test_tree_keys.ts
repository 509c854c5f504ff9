import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * A test's parent is a foreign key, deleted with cascade: a directory's row going takes its
 * subtree with it, so no test can outlive its directory (issue 25). Revision → test and
 * revision step → revision already cascade (0002).
 *
 * Tests left orphaned by the race this closes (a create committed beside a directory's
 * delete) are removed first, as the delete would have removed them.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run before the typed schema exists
export async function up(db: Kysely<any>): Promise<void> {
  // Repeated: a removed orphan's children are orphans in turn.
  for (;;) {
    const removed = await sql`delete from tests where "parentTestId" is not null
      and "parentTestId" not in (select id from tests)`.execute(db);
    if (Number(removed.numAffectedRows ?? 0) === 0) break;
  }
  if (isPostgres(db)) {
    await sql`alter table tests add constraint "tests_parentTestId_fkey"
      foreign key ("parentTestId") references tests (id) on delete cascade`.execute(db);
    return;
  }
  // SQLite cannot add a constraint to a table: rebuild it (sqlite.org/lang_altertable.html,
  // "other kinds of table schema changes"), with foreign keys off so the drop cascades nowhere.
  // The migrator holds SQLite's one connection and opens no transaction of its own here.
  await sql`pragma foreign_keys = off`.execute(db);
  try {
    await sql`begin`.execute(db);
    await sql`create table "tests_new" (
      "id" text primary key,
      "projectId" text not null references "projects" ("id") on delete cascade,
      "organizationId" text not null,
      "parentTestId" text references "tests" ("id") on delete cascade,
      "directory" integer default 0 not null,
      "createdAt" text not null,
      "updatedAt" text not null
    )`.execute(db);
    await sql`insert into "tests_new" select "id", "projectId", "organizationId", "parentTestId",
      "directory", "createdAt", "updatedAt" from "tests"`.execute(db);
    await sql`drop table "tests"`.execute(db);
    await sql`alter table "tests_new" rename to "tests"`.execute(db);
    await sql`create index "tests_project" on "tests" ("projectId", "createdAt")`.execute(db);
    await sql`create index "tests_parent" on "tests" ("parentTestId")`.execute(db);
    const broken = await sql`pragma foreign_key_check`.execute(db);
    if (broken.rows.length > 0)
      throw new Error(`foreign key check failed: ${JSON.stringify(broken.rows[0])}`);
    await sql`commit`.execute(db);
  } catch (error) {
    await sql`rollback`.execute(db).catch(() => {});
    throw error;
  } finally {
    await sql`pragma foreign_keys = on`.execute(db);
  }
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
const isPostgres = (db: Kysely<any>): boolean => db.getExecutor().adapter instanceof PostgresAdapter;

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) await sql`alter table tests drop constraint "tests_parentTestId_fkey"`.execute(db);
}
