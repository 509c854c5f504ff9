/**
 * One background loop of the service (the runs dispatcher, the scheduler, the webhook
 * dispatcher, the inbox retention sweep): a pass now and then, never two at once.
 *
 * - `start()`: a pass now, then the next one `intervalMs` after each pass ends, or sooner when
 *   the pass returns a shorter delay (the earliest due item it saw).
 * - `wake()`: a pass now; while one is in flight, exactly one more right after it, however
 *   many wakes came meanwhile (they coalesce: the next pass sees everything they announced).
 * - `stop()`: no pass starts any more (timers, wakes); resolves once the pass in flight has
 *   ended, so the database can close right after.
 *
 * A pass that throws is reported to `onError` and the loop goes on with the next one.
 */
export interface PollerOptions {
  /** One pass; may return how soon (ms) to look again, when that is before `intervalMs`. */
  pass: () => Promise<unknown>;
  /** The longest wait between the end of a pass and the next one. */
  intervalMs: number;
  onError: (error: unknown) => void;
}

export class Poller {
  private readonly options: PollerOptions;
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> | undefined;
  private again = false;
  private started = false;
  private stopRequested = false;

  constructor(options: PollerOptions) {
    this.options = options;
  }

  /** Whether `stop()` was called: a pass checks it to stop taking work early. */
  get stopped(): boolean {
    return this.stopRequested;
  }

  /** Starts the loop with a pass now (again after a stop). */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.stopRequested = false;
    this.wake();
  }

  /** A pass now, or once the one in flight ends; nothing before `start()` or after `stop()`. */
  wake(): void {
    if (!this.started || this.stopRequested) return;
    if (this.inFlight) {
      this.again = true;
      return;
    }
    this.run();
  }

  /** Resolves once no pass is in flight (the one `start()` or `wake()` began, and those it coalesced). */
  async idle(): Promise<void> {
    while (this.inFlight) await this.inFlight;
  }

  async stop(): Promise<void> {
    this.stopRequested = true;
    this.started = false;
    this.again = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.idle();
  }

  private run(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.again = false;
    let soon: number | undefined;
    // Started in a microtask and cleared in `.finally` (always a later one): `inFlight` is set
    // before the pass can end, even when it ends without awaiting anything.
    this.inFlight = Promise.resolve()
      .then(() => this.options.pass())
      .then(
        (delay) => {
          if (typeof delay === 'number') soon = delay;
        },
        (error: unknown) => {
          try {
            this.options.onError(error);
          } catch {
            // A failing report must not stop the loop.
          }
        },
      )
      .finally(() => {
        this.inFlight = undefined;
        if (!this.started || this.stopRequested) return;
        if (this.again) this.run();
        else this.arm(Math.min(soon ?? this.options.intervalMs, this.options.intervalMs));
      });
  }

  private arm(delayMs: number): void {
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.wake();
      },
      Math.max(0, delayMs),
    );
    this.timer.unref();
  }
}
