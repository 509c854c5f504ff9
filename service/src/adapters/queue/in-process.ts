import type { JobHandler, JobQueue, QueueLog } from './index.ts';

/** Jobs delivered in this process on the next tick; nothing survives a restart. */
export class InProcessQueue implements JobQueue {
  readonly kind = 'in-process' as const;
  private readonly handlers = new Map<
    string,
    { handler: JobHandler; concurrency: number; running: Set<Promise<void>> }
  >();
  private readonly backlog = new Map<string, Array<Record<string, unknown>>>();
  private readonly log: QueueLog | undefined;
  private stopped = false;

  constructor(log?: QueueLog) {
    this.log = log;
  }

  async send(name: string, payload: Record<string, unknown>): Promise<void> {
    if (this.stopped) return;
    const list = this.backlog.get(name) ?? [];
    list.push(payload);
    this.backlog.set(name, list);
    setImmediate(() => this.drain(name));
  }

  async work(name: string, handler: JobHandler, options: { concurrency?: number } = {}): Promise<void> {
    this.handlers.set(name, { handler, concurrency: options.concurrency ?? 1, running: new Set() });
    setImmediate(() => this.drain(name));
  }

  async offWork(name: string): Promise<void> {
    const entry = this.handlers.get(name);
    this.handlers.delete(name);
    if (entry) await Promise.allSettled([...entry.running]);
  }

  async ping(): Promise<void> {}

  private drain(name: string): void {
    const entry = this.handlers.get(name);
    const list = this.backlog.get(name);
    if (!entry || !list) return;
    while (!this.stopped && entry.running.size < entry.concurrency && list.length > 0) {
      const payload = list.shift() as Record<string, unknown>;
      const job: Promise<void> = entry
        .handler(payload)
        .catch((error: unknown) => this.log?.error({ err: error, job: name }, 'job handler failed'))
        .finally(() => {
          entry.running.delete(job);
          this.drain(name);
        });
      entry.running.add(job);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.backlog.clear();
    await Promise.allSettled([...this.handlers.values()].flatMap((entry) => [...entry.running]));
  }
}
