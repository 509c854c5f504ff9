import type { Clock } from '../../clock.ts';

/** Failed sign-ins counted per account and per client address over this window. */
export const signInWindowMs = 15 * 60_000;
/** Failures allowed per window before sign-in answers 429 (for that account or address). */
export const signInMaxFailures = 10;
/** The delay added to an answer after the first failures grows by this much per failure. */
const delayStepMs = 100;
const maxDelayMs = 1_000;

const accountOf = (email: string) => email.trim().toLowerCase();

/**
 * Throttles console sign-in against guessing. Each failure is remembered for
 * {@link signInWindowMs}. After {@link signInMaxFailures} failures for one account from one
 * client address, that account gets 429 with Retry-After from that address until the oldest
 * failure ages out. The lock is per account and address together: behind a proxy (see
 * `TRUSTED_PROXIES`) or a shared NAT many people share an address, and a lock per address
 * would let one person's typos, or a guesser's, keep everyone out. The account's failures
 * from all addresses, and the address's failures for all accounts, only slow the answers (a
 * growing delay, at most a second): a lock per account alone would let anyone keep the owner
 * out for good by guessing from a few addresses. The counts live in this process (a restart
 * forgets them, as a rate limiter's would).
 */
export class SignInThrottle {
  private readonly failures = new Map<string, number[]>();
  private readonly clock: Clock;

  constructor(options: { clock: Clock }) {
    this.clock = options.clock;
  }

  /** The key whose failures lead to 429: the account from that address. */
  private lockKeys(email: string, address: string): string[] {
    return [`pair:${address}\n${accountOf(email)}`];
  }

  /** Keys whose failures only slow the answers. */
  private slowKeys(email: string, address: string): string[] {
    return [...this.lockKeys(email, address), `address:${address}`, `account:${accountOf(email)}`];
  }

  private recent(key: string, now: number): number[] {
    const kept = (this.failures.get(key) ?? []).filter((at) => at > now - signInWindowMs);
    if (kept.length === 0) this.failures.delete(key);
    else this.failures.set(key, kept);
    return kept;
  }

  /** Seconds to wait before trying again, or 0 when a sign-in may be attempted now. */
  retryAfterSeconds(email: string, address: string): number {
    const now = this.clock.now().getTime();
    let waitMs = 0;
    for (const key of this.lockKeys(email, address)) {
      const recent = this.recent(key, now);
      if (recent.length >= signInMaxFailures) {
        const oldest = recent[recent.length - signInMaxFailures] as number;
        waitMs = Math.max(waitMs, oldest + signInWindowMs - now);
      }
    }
    return waitMs > 0 ? Math.ceil(waitMs / 1000) : 0;
  }

  /** The growing delay before answering an attempt (0 before any failure). */
  delayMs(email: string, address: string): number {
    const now = this.clock.now().getTime();
    const keys = this.slowKeys(email, address);
    const count = Math.max(...keys.map((key) => this.recent(key, now).length));
    return Math.min(maxDelayMs, count * delayStepMs);
  }

  recordFailure(email: string, address: string): void {
    const now = this.clock.now().getTime();
    for (const key of this.slowKeys(email, address)) this.failures.set(key, [...this.recent(key, now), now]);
  }

  /** A successful sign-in clears the account's failures (the address keeps its own). */
  recordSuccess(email: string, address: string): void {
    this.failures.delete(`account:${accountOf(email)}`);
    this.failures.delete(`pair:${address}\n${accountOf(email)}`);
  }
}
