import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface FakeS3 {
  endpoint: string;
  bucket: string;
  /** S3rver's fixed credentials. */
  accessKeyId: string;
  secretAccessKey: string;
  /** S3_* variables that select this server in `loadConfig`. */
  env: Record<string, string>;
  close(): Promise<void>;
}

const script = path.join(import.meta.dirname, 's3rver-process.ts');

/**
 * A real S3-protocol server (s3rver 3.7.1) on a free loopback port, backed by a temp directory,
 * in a child process started with `--openssl-legacy-provider` (see s3rver-process.ts).
 */
export async function startFakeS3(bucket = 'stepdeck-artifacts'): Promise<FakeS3> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 's3rver-'));
  const child = spawn(process.execPath, ['--openssl-legacy-provider', script, directory, bucket], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (data: Buffer) => {
      output += data.toString();
      const line = output.split('\n')[0];
      if (output.includes('\n') && line) resolve((JSON.parse(line) as { port: number }).port);
    });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`s3rver exited with ${code}`)));
  });
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    env: {
      S3_BUCKET: bucket,
      S3_ENDPOINT: endpoint,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
    },
    close: async () => {
      await stopChild(child);
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}
