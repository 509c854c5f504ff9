// @ts-expect-error: a plain .mjs script shared with .ci/run
import { startPostgres } from '../../scripts/postgres.mjs';

/** One PostgreSQL cluster for the whole test run; each test app gets its own database in it. */
export default async function setup() {
  const postgres = (await startPostgres()) as { url: string; stop: () => void | Promise<void> };
  process.env.TEST_DATABASE_URL = postgres.url;
  return () => postgres.stop();
}
