/**
 * WAL checkpoints of the embedded SQLite file, in a thread of their own. SQLite's automatic
 * checkpoint runs inside the COMMIT that crosses 1000 pages of WAL, on the event loop: it
 * copies those pages into the database file and syncs it, and every request waits meanwhile
 * (under 50 writing clients, commits took an eighth of the event loop's time). This thread
 * copies them instead, PASSIVE (it never blocks a writer or a reader), every `intervalMs`.
 *
 * The main thread starts it with `startCheckpointer`; in the thread, this file is the worker.
 */

import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import SqliteDatabase from 'better-sqlite3';

interface CheckpointerData {
  filePath: string;
  intervalMs: number;
}

export interface Checkpointer {
  /** Stops the thread after one last checkpoint. */
  stop(): Promise<void>;
}

export function startCheckpointer(
  filePath: string,
  onError: (error: Error) => void,
  intervalMs = 1_000,
): Checkpointer {
  const worker = new Worker(new URL(import.meta.url), {
    workerData: { filePath, intervalMs } satisfies CheckpointerData,
  });
  // Never what keeps the process alive; `stop` ends it with the database.
  worker.unref();
  worker.on('error', onError);
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    async stop() {
      // Held alive until the thread has checkpointed and closed its connection.
      worker.ref();
      worker.postMessage('stop');
      await exited;
    },
  };
}

if (!isMainThread && parentPort && (workerData as Partial<CheckpointerData>)?.filePath) {
  const { filePath, intervalMs } = workerData as CheckpointerData;
  const port = parentPort;
  const file = new SqliteDatabase(filePath);
  file.pragma('busy_timeout = 5000');
  const checkpoint = () => file.pragma('wal_checkpoint(PASSIVE)');
  const timer = setInterval(checkpoint, intervalMs);
  port.on('message', (message) => {
    if (message !== 'stop') return;
    clearInterval(timer);
    checkpoint();
    file.close();
    port.close();
  });
}
