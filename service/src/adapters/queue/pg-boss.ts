import { PgBoss } from 'pg-boss';
import type { JobHandler, JobQueue, QueueLog } from './index.ts';

export const queueApplicationName = 'stepdeck-queue';

/** pg-boss on the service's PostgreSQL: jobs survive restarts and reach any attached process. */
export class PgBossQueue implements JobQueue {
  readonly kind = 'pg-boss' as const;
  private readonly boss: PgBoss;
  private readonly created = new Set<string>();

  private constructor(boss: PgBoss) {
    this.boss = boss;
  }

  static async start(url: string, options: { listen?: boolean; log: QueueLog }): Promise<PgBossQueue> {
    const boss = new PgBoss({
      connectionString: url,
      useListenNotify: options.listen ?? true,
      max: 4,
      // Names its sessions in pg_stat_activity (operators count connections per part).
      application_name: queueApplicationName,
    });
    // pg-boss emits its pool's and its maintenance loop's errors here; without a listener
    // an 'error' event would crash the process, so they are logged (never dropped).
    boss.on('error', (error) => options.log.error({ err: error }, 'job queue error'));
    boss.on('warning', (warning) => options.log.warn({ warning }, 'job queue warning'));
    await boss.start();
    return new PgBossQueue(boss);
  }

  private async ensure(name: string): Promise<void> {
    if (this.created.has(name)) return;
    await this.boss.createQueue(name, { notify: true, retryLimit: 2, expireInSeconds: 3600 });
    this.created.add(name);
  }

  async send(name: string, payload: Record<string, unknown>): Promise<void> {
    await this.ensure(name);
    await this.boss.send(name, payload);
  }

  async work(name: string, handler: JobHandler, options: { concurrency?: number } = {}): Promise<void> {
    await this.ensure(name);
    await this.boss.work<Record<string, unknown>>(
      name,
      { pollingIntervalSeconds: 0.5, batchSize: 1, localConcurrency: options.concurrency ?? 1 },
      async (jobs) => {
        for (const job of jobs) await handler(job.data);
      },
    );
  }

  async offWork(name: string): Promise<void> {
    // Waits for the jobs this process is handling under that name.
    await this.boss.offWork(name, { wait: true });
  }

  async ping(): Promise<void> {
    await this.boss.getQueues();
  }

  async stop(): Promise<void> {
    await this.boss.stop({ graceful: true, timeout: 5000 });
  }
}
