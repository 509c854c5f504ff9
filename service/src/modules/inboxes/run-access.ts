import type { Scope, StepNode } from '@stepdeck/contract';
import type { Db } from '../../adapters/db/index.ts';
import type { Clock } from '../../clock.ts';
import { deleteApiKey, deleteInternalApiKeys, insertApiKey } from '../accounts/public.ts';

/**
 * The API key a run's email steps (`waitForEmail`) poll the inbox API with.
 *
 * Never a user's key: each run that uses email steps gets its own internal key, scoped to
 * `emailInbox:read` only, named `stepdeck-run:<runId>`, passed to the Playwright child as
 * `STEPDECK_API_KEY` (environment only, never written into the bundle; the executor and
 * the artifact upload redact it) and deleted when the run ends. Keys left behind by a
 * crashed process are deleted by the inbox retention sweep once older than any run can last.
 */
export const runKeyNamePrefix = 'stepdeck-run:';
const runKeyScopes: readonly Scope[] = ['emailInbox:read'];
/** Runs are capped at 6 hours; a run key older than this belongs to a dead run. */
export const runKeyMaxAgeMs = 7 * 3_600_000;

export interface RunInboxAccess {
  /** `STEPDECK_API_URL` and `STEPDECK_API_KEY`, or nothing when no test uses email steps. */
  env: Record<string, string>;
  /** Deletes the key (idempotent). */
  release(): Promise<void>;
}

/** True when a step (or a nested one) needs the inbox API. */
export function usesEmailSteps(tests: ReadonlyArray<{ steps: StepNode[] }>): boolean {
  const visit = (steps: StepNode[] | undefined): boolean =>
    (steps ?? []).some((step) => step.action.name === 'waitForEmail' || visit(step.children));
  return tests.some((test) => visit(test.steps));
}

export async function issueRunInboxAccess(
  db: Db,
  clock: Clock,
  options: {
    organizationId: string;
    runId: string;
    apiUrl: string;
    tests: ReadonlyArray<{ steps: StepNode[] }>;
  },
): Promise<RunInboxAccess> {
  if (!usesEmailSteps(options.tests)) return { env: {}, release: async () => {} };
  const { id, key } = await insertApiKey(
    db,
    {
      organizationId: options.organizationId,
      name: `${runKeyNamePrefix}${options.runId}`,
      scopes: runKeyScopes,
      createdByUserId: null,
    },
    clock.now().toISOString(),
  );
  let released = false;
  return {
    env: { STEPDECK_API_URL: options.apiUrl, STEPDECK_API_KEY: key },
    async release() {
      if (released) return;
      released = true;
      await deleteApiKey(db, id);
    },
  };
}

/** Deletes run keys older than any run can last (their process died before releasing them). */
export async function deleteStaleRunKeys(db: Db, clock: Clock): Promise<number> {
  const cutoff = new Date(clock.now().getTime() - runKeyMaxAgeMs).toISOString();
  return deleteInternalApiKeys(db, runKeyNamePrefix, cutoff);
}
