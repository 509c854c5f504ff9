import os from 'node:os';
import type { StepdeckClient } from './client.ts';

export interface InterruptOptions {
  /** The runs started so far (read when the signal arrives). */
  runIds: () => readonly string[];
  /** Writes the one line saying what happened (stderr). */
  log: (line: string) => void;
  /** Called last, with 128 + the signal's number (130 for SIGINT, 143 for SIGTERM). */
  exit: (code: number) => void;
  /** The cancel requests are cut after this long: a job being stopped has little time left. */
  timeoutMs?: number;
}

const signals = ['SIGINT', 'SIGTERM'] as const;

/**
 * While the CLI waits, Ctrl-C or a CI system's SIGTERM would leave the remote run running on
 * the service (holding a runner slot and the test's one active run): on either signal the runs
 * it started are cancelled, as the action's post step does, then the process exits with the
 * conventional code. A second signal during the cancel exits at once. Returns the remover.
 */
export function cancelOnInterrupt(client: StepdeckClient, options: InterruptOptions): () => void {
  let interrupted = false;
  const handler = (signal: NodeJS.Signals) => {
    const code = 128 + (os.constants.signals[signal] ?? 0);
    if (interrupted) return options.exit(code);
    interrupted = true;
    void cancelAll(client, options.runIds(), options.timeoutMs ?? 10_000).then((outcome) => {
      options.log(`stepdeck: interrupted by ${signal}: ${outcome}`);
      options.exit(code);
    });
  };
  for (const signal of signals) process.on(signal, handler);
  return () => {
    for (const signal of signals) process.off(signal, handler);
  };
}

async function cancelAll(client: StepdeckClient, runIds: readonly string[], timeoutMs: number) {
  if (runIds.length === 0) return 'the trigger had not answered yet, no run to cancel';
  const cancelled: string[] = [];
  const failed: string[] = [];
  const attempts = runIds.map(async (runId) => {
    try {
      await client.cancel(runId);
      cancelled.push(runId);
    } catch (error) {
      failed.push(`${runId} (${(error as Error).message})`);
    }
  });
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, timeoutMs);
  });
  await Promise.race([Promise.all(attempts), timedOut]);
  clearTimeout(timer);
  const pending = runIds.filter((id) => !cancelled.includes(id) && !failed.some((f) => f.startsWith(id)));
  const parts = [
    cancelled.length > 0 && `cancelled ${plural(cancelled.length, 'run')} ${cancelled.join(', ')}`,
    failed.length > 0 && `could not cancel ${failed.join(', ')}`,
    pending.length > 0 && `no answer within ${timeoutMs / 1000} s to cancelling ${pending.join(', ')}`,
  ];
  return parts.filter(Boolean).join('; ');
}

const plural = (count: number, word: string) => (count === 1 ? word : `${word}s`);
