/**
 * What a process started before its run (a standby runner or its waiting worker) does when its
 * job arrives: takes the run's environment as its whole environment — nothing of the one it
 * waited with is left — and the run's folder as its working directory.
 *
 * Playwright's `debug` logger (`DEBUG=pw:api`, `pw:protocol`, …) read `DEBUG` as it loaded,
 * before the job, so it is told the run's value here; `playwright` resolves Playwright's
 * modules as the process loaded them.
 */
export function adoptJob(
  env: Record<string, string | undefined>,
  cwd: string,
  playwright: NodeJS.Require,
): void {
  for (const key of Object.keys(process.env)) if (env[key] === undefined) delete process.env[key];
  for (const [key, value] of Object.entries(env)) if (value !== undefined) process.env[key] = value;
  process.chdir(cwd);
  try {
    const { debug } = playwright('playwright-core/lib/utilsBundle') as {
      debug?: { enable(namespaces: string): void };
    };
    debug?.enable(process.env.DEBUG ?? '');
  } catch {
    // Only Playwright's debug logging is lost, not the run.
  }
}
