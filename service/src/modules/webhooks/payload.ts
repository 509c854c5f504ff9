import type { WebhookBody, WebhookTriage } from '@stepdeck/contract';
import type { RunFinished } from '../../context.ts';

export const webhookEvents = ['run.completed', 'run.failed'] as const;
export type WebhookEvent = (typeof webhookEvents)[number];

export const eventOf = (status: RunFinished['status']): WebhookEvent =>
  status === 'completed' ? 'run.completed' : 'run.failed';

/** Deep link to a run in the console, built from PUBLIC_URL. */
export const runUrl = (publicUrl: string, run: Pick<RunFinished, 'runId' | 'project'>) =>
  `${publicUrl.replace(/\/+$/, '')}/console/projects/${encodeURIComponent(run.project.id)}/runs/${encodeURIComponent(run.runId)}`;

/**
 * The delivery body, field order as the spec's table. Serialised once when the delivery is
 * recorded; every attempt and retry sends exactly those bytes.
 */
export function buildBody(input: {
  event: WebhookEvent;
  deliveryId: string;
  timestamp: string;
  run: RunFinished;
  publicUrl: string;
  custom: Record<string, unknown> | null;
  /** The run's failures classed against the base branch; null when it has none (or no history). */
  triage?: WebhookTriage | null;
}): WebhookBody {
  const { run } = input;
  const body: WebhookBody = {
    event: input.event,
    deliveryId: input.deliveryId,
    timestamp: input.timestamp,
    run: {
      id: run.runId,
      name: run.name,
      status: run.status,
      url: runUrl(input.publicUrl, run),
      startedAt: run.startedAt,
      finishedAt: run.finishedAt,
      durationMs: Math.round(run.durationMs),
      trigger: run.trigger,
      project: { id: run.project.id, name: run.project.name },
      branch: { id: run.branch.id, name: run.branch.name },
      target: { type: run.target.type, id: run.target.id, name: run.target.name },
      ...(run.environment ? { environment: run.environment } : {}),
      stats: {
        passed: run.stats.passed,
        failed: run.stats.failed,
        skipped: run.stats.skipped,
        total: run.stats.total,
      },
      tests: run.tests.map((test) => ({
        name: test.name,
        status: test.status,
        durationMs: Math.round(test.durationMs),
        errorMessage: test.errorMessage,
        errorLocation: test.errorLocation,
      })),
      visualChanges: run.visualChanges ?? [],
      ...(run.leftOut && run.leftOut.count > 0 ? { leftOut: run.leftOut } : {}),
      ...(input.triage && input.triage.failures.length > 0 ? { triage: input.triage } : {}),
    },
  };
  if (input.custom !== null) body.custom = input.custom;
  return body;
}

/** An example body for `GET /v1/webhooks/sample-payload`. */
export function sampleBody(event: WebhookEvent, publicUrl: string): WebhookBody {
  const failed = event === 'run.failed';
  const run: RunFinished = {
    organizationId: '00000000-0000-4000-8000-000000000000',
    runId: '3f6c2a1e-8b7d-4c5e-9a0f-1d2e3c4b5a69',
    name: 'Checkout flow #42',
    status: failed ? 'failed' : 'completed',
    startedAt: '2026-01-15T09:30:00.000Z',
    finishedAt: '2026-01-15T09:31:12.345Z',
    durationMs: 72345,
    trigger: { type: 'apiKey', name: 'CI pipeline' },
    project: { id: '7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d', name: 'Web shop' },
    branch: { id: '9b8a7c6d-5e4f-4d3c-8b2a-1f0e9d8c7b6a', name: 'main' },
    target: { type: 'directory', id: '5c4d3e2f-1a0b-4c9d-8e7f-6a5b4c3d2e1f', name: 'Checkout' },
    stats: { passed: failed ? 1 : 2, failed: failed ? 1 : 0, skipped: 0, total: 2 },
    tests: [
      { name: 'Add to cart', status: 'passed', durationMs: 30120, errorMessage: null, errorLocation: null },
      failed
        ? {
            name: 'Pay with card',
            status: 'failed',
            durationMs: 42225,
            // The shape a real failure has: the step, its action, the expectation.
            errorMessage:
              'Step "Pay › Confirmation" (assertText #status) failed\nExpected substring: "Order confirmed"\nReceived string: "Payment declined"\nTimeout: 5000ms',
            errorLocation: 'Pay › Confirmation',
          }
        : {
            name: 'Pay with card',
            status: 'passed',
            durationMs: 42225,
            errorMessage: null,
            errorLocation: null,
          },
    ],
    visualChanges: [],
  };
  return buildBody({
    event,
    deliveryId: 'c0ffee00-1234-4abc-8def-0123456789ab',
    timestamp: '2026-01-15T09:31:12.400Z',
    run,
    publicUrl,
    custom: null,
    triage: failed
      ? {
          baseBranch: 'main',
          counts: { new: 1, known: 0, flaky: 0, quarantined: 0 },
          failures: [
            { testId: '2d3e4f5a-6b7c-4d8e-9f0a-1b2c3d4e5f6a', name: 'Pay with card', triage: 'new' },
          ],
        }
      : null,
  });
}
