import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import type { TestApp } from '../../helper.ts';

const workerScript = path.resolve(import.meta.dirname, '../../../src/worker.ts');

/**
 * `npm run worker` processes against a test app's PostgreSQL database and data folder, as an
 * install with separate runner machines starts them: each resolves once it logs `worker ready`.
 */
export class WorkerProcesses {
  readonly all: ChildProcess[] = [];
  private readonly env: () => Record<string, string>;

  /** `env` is read at each start (the test app exists only once `beforeAll` ran). */
  constructor(env: () => Record<string, string>) {
    this.env = env;
  }

  async start(): Promise<ChildProcess> {
    const child = spawn(process.execPath, [workerScript], {
      env: { ...process.env, LOG_LEVEL: 'error', ADMIN_PASSWORD: 'admin-password', ...this.env() },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    this.all.push(child);
    await new Promise<void>((resolve, reject) => {
      child.stdout?.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('worker ready')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`worker exited with ${code}`)));
    });
    return child;
  }

  /** The worker whose pid a runner slot (`host:pid:n`) names. */
  ofSlot(slot: string | null): ChildProcess | undefined {
    return this.all.find((child) => String(child.pid) === String(slot).split(':')[1]);
  }

  pids(): string[] {
    return this.all.map((child) => String(child.pid));
  }

  /** SIGTERM to the workers still running, waiting for each to exit. */
  async stop(): Promise<void> {
    for (const child of this.all) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  }
}

/** The environment that points a worker at a test app's database and data folder. */
export const workerEnv = (t: TestApp, extra: Record<string, string> = {}) => ({
  DATABASE_URL: t.databaseUrl as string,
  DATA_DIR: t.dataDir,
  ...extra,
});
