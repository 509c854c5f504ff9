import type { JobHandler, JobQueue } from './index.ts';

/** Jobs delivered in this process on the next tick; nothing survives a restart. */
export class InProcessQueue implements JobQueue {
  readonly kind = 'in-process' as const;
  private readonly handlers = new Map<string, { handler: JobHandler; concurrency: number; active: number }>();
  private readonly backlog = new Map<string, Array<Record<string, unknown>>>();
  private stopped = false;

  async send(name: string, payload: Record<string, unknown>): Promise<void> {
    if (this.stopped) return;
    const list = this.backlog.get(name) ?? [];
    list.push(payload);
    this.backlog.set(name, list);
    setImmediate(() => this.drain(name));
  }

  async work(name: string, handler: JobHandler, options: { concurrency?: number } = {}): Promise<void> {
    this.handlers.set(name, { handler, concurrency: options.concurrency ?? 1, active: 0 });
    setImmediate(() => this.drain(name));
  }

  private drain(name: string): void {
    const entry = this.handlers.get(name);
    const list = this.backlog.get(name);
    if (!entry || !list) return;
    while (!this.stopped && entry.active < entry.concurrency && list.length > 0) {
      const payload = list.shift() as Record<string, unknown>;
      entry.active += 1;
      entry
        .handler(payload)
        .catch(() => {})
        .finally(() => {
          entry.active -= 1;
          this.drain(name);
        });
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.backlog.clear();
  }
}
