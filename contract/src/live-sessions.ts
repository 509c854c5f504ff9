import { z } from 'zod';
import { dataOf, uuid } from './common.ts';
import type { RecordedStep, UnmappedAction } from './recording.ts';

/** A live browser's viewport in CSS pixels (also the bounds of the input it accepts). */
export const liveViewport = z.object({
  width: z
    .number()
    .int()
    .min(320, 'viewport.width must be at least 320')
    .max(1920, 'viewport.width must be at most 1920'),
  height: z
    .number()
    .int()
    .min(240, 'viewport.height must be at least 240')
    .max(1080, 'viewport.height must be at most 1080'),
});

/** POST /console/v1/projects/:projectId/live-sessions */
export const liveSessionCreateBody = z.object({
  url: z
    .string({ error: 'url must be a string' })
    .min(1, 'url must not be empty')
    .max(8_192, 'url is too long'),
  testId: uuid.optional(),
  viewport: liveViewport.optional(),
});

export const liveSession = z.object({
  id: uuid,
  projectId: uuid,
  testId: uuid.nullable(),
  viewport: liveViewport,
  startedAt: z.string(),
  /** Path of the session's WebSocket (frames out, input in). */
  streamPath: z.string(),
});
export type LiveSession = z.infer<typeof liveSession>;

export const liveSessionResponse = dataOf(liveSession);

/** A locator the element picker offers, with how many elements it finds now. */
export interface LivePickedLocator {
  selector: string;
  locator: string;
  matches: number;
}

/** The JSON events of a live session's stream (binary messages are JPEG frames). */
export type LiveServerEvent =
  | { type: 'url'; url: string }
  | { type: 'title'; title: string }
  | {
      type: 'picked';
      element: { tag: string; role: string | null; name: string } | null;
      locators: LivePickedLocator[];
    }
  /** Recording turned on or off (the answer to a `record` message, or the session stopping it). */
  | { type: 'recording'; on: boolean }
  /**
   * What the recorder added since the last `recorded` event, mapped by the shared mapper
   * (`mapRecording`): `steps` come after the recording's earlier steps, less the last `replaces`
   * of them, which these stand for now (typing goes on in a field, an action turns out to open a
   * popup). `unmapped`: the new actions that have no step, each with why.
   */
  | { type: 'recorded'; steps: RecordedStep[]; replaces: number; unmapped: UnmappedAction[] }
  /** A replay (the `replay` message) is about to run its `done + 1`th step of `total`. */
  | { type: 'replaying'; done: number; total: number; step: { stepId: string; name: string } }
  /**
   * A replay ended: `done` of its `total` steps were run (or passed over); `stoppedAt` names the
   * step it stopped at, and why, when it did not run them all.
   */
  | { type: 'replayed'; done: number; total: number; stoppedAt?: LiveReplayStop }
  | { type: 'error'; message: string }
  | { type: 'ended'; reason: string };

/** The step a replay stopped at (its `id` as the console sent it) and why. */
export interface LiveReplayStop {
  stepId: string;
  name: string;
  reason: string;
}

/** The `error` event's message for input or a replay sent while a replay holds the page. */
export const liveReplayBusy = 'a replay is running: wait for it to end';

/** How many steps (groups included) one `replay` message may hold. */
export const maxReplaySteps = 500;

/**
 * Console → live session: run these steps (the test's, from its first up to the chosen one)
 * in the live page, so the next step is picked or recorded from the state they lead to.
 * `vars` and `parameters` fill `{{vars.X}}` and `{{parameters.X}}`; `baseURL` resolves a
 * `goto`'s relative URL.
 */
export interface LiveReplayMessage {
  type: 'replay';
  steps: Array<{
    id: string;
    name: string;
    action: Record<string, unknown>;
    condition?: { type: string; [key: string]: unknown } | null;
    children?: LiveReplayMessage['steps'];
  }>;
  vars?: Record<string, unknown>;
  parameters?: Record<string, unknown>;
  baseURL?: string;
}
