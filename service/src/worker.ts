import { runProcess } from './process.ts';

/**
 * `npm run worker`: the same app as the service without listening (no HTTP, no SMTP). With
 * DATABASE_URL, any number of workers (and API processes) share the runs in PostgreSQL: each
 * claims pending runs under the org's concurrency cap, executes them and reports. Also
 * delivers the webhooks of the runs it ends, and claims due schedule ticks and performs
 * `schedules.fire` jobs (each tick fires once). Blobs must be shared with the API: S3_*
 * settings, or the same DATA_DIR.
 */
await runProcess('worker');
