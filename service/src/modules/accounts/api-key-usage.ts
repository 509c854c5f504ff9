import type { Db } from '../../adapters/db/index.ts';
import type { Clock } from '../../clock.ts';
import { writeApiKeyLastUsed } from './credentials-repository.ts';

/** How often at most a key's `lastUsedAt` is written: "last used" is shown to the minute. */
export const lastUsedResolutionMs = 60_000;

/**
 * Records when each API key last authenticated, without a write per request: this process
 * remembers when it last wrote each key and skips it for a minute; the UPDATE itself only
 * changes a value older than a minute (other instances on PostgreSQL write too). It runs off
 * the request's path (never awaited by the request); a failure is logged and retried on the
 * key's next request, never thrown at the caller.
 */
export class ApiKeyUsage {
  private readonly written = new Map<string, number>();
  private readonly pending = new Set<Promise<void>>();
  private static readonly maxRemembered = 10_000;

  private readonly db: Db;
  private readonly clock: Clock;
  private readonly logError: (error: unknown, apiKeyId: string) => void;

  constructor(options: { db: Db; clock: Clock; logError: (error: unknown, apiKeyId: string) => void }) {
    this.db = options.db;
    this.clock = options.clock;
    this.logError = options.logError;
  }

  record(apiKeyId: string): void {
    const now = this.clock.now().getTime();
    const last = this.written.get(apiKeyId);
    if (last !== undefined && now - last < lastUsedResolutionMs && now >= last) return;
    if (this.written.size >= ApiKeyUsage.maxRemembered) this.written.clear();
    this.written.set(apiKeyId, now);
    const write = this.write(apiKeyId, now).catch((error: unknown) => {
      this.written.delete(apiKeyId);
      this.logError(error, apiKeyId);
    });
    this.pending.add(write);
    void write.finally(() => this.pending.delete(write));
  }

  /** Resolves once every write started so far has finished (tests, shutdown). */
  async settled(): Promise<void> {
    await Promise.all([...this.pending]);
  }

  private async write(apiKeyId: string, now: number): Promise<void> {
    await writeApiKeyLastUsed(this.db, apiKeyId, new Date(now), lastUsedResolutionMs);
  }
}
