/**
 * What a process started before its run (a standby runner or its waiting worker) does when its
 * job arrives: takes the run's environment as its whole environment — nothing of the one it
 * waited with is left — and the run's folder as its working directory.
 */
export function adoptJob(env: Record<string, string | undefined>, cwd: string): void {
  for (const key of Object.keys(process.env)) if (env[key] === undefined) delete process.env[key];
  for (const [key, value] of Object.entries(env)) if (value !== undefined) process.env[key] = value;
  process.chdir(cwd);
}
