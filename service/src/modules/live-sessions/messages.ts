/**
 * What travels over a live session's WebSocket. Server → console: binary messages are JPEG
 * frames of the page; text messages are the JSON {@link ServerEvent}s. Console → server: the
 * JSON {@link ClientMessage}s, checked here (shape, and coordinates inside the viewport in the
 * page's CSS pixels) before anything reaches the browser.
 */
import {
  type LivePickedLocator,
  type LiveServerEvent,
  maxReplaySteps,
  maxStepDepth,
  maxStepNameLength,
} from '@stepdeck/contract';
import { z } from 'zod';

const modifiers = z.number().int().min(0).max(15).optional();
const coordinate = { x: z.number().finite(), y: z.number().finite() };

/**
 * A step to replay as the console holds it. Its action is checked against the step vocabulary
 * only when the replay reaches it: an unfinished step further on must not refuse the rest.
 */
export interface ReplayStep {
  id: string;
  name: string;
  action: { name: string; [key: string]: unknown };
  condition?: { type: string; [key: string]: unknown } | null | undefined;
  children?: ReplayStep[] | undefined;
}
const replayStep: z.ZodType<ReplayStep> = z.lazy(() =>
  z.object({
    id: z.string({ error: 'a step id must be a string' }).min(1).max(200),
    name: z.string({ error: 'a step name must be a string' }).max(maxStepNameLength),
    action: z.object({ name: z.string({ error: 'action.name must be a string' }).max(64) }).loose(),
    condition: z
      .object({ type: z.string().max(32) })
      .loose()
      .nullable()
      .optional(),
    children: z.array(replayStep).optional(),
  }),
);
const values = z.record(z.string().max(256), z.unknown()).optional();

const clientMessage = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('mouse'),
    event: z.enum(['move', 'down', 'up', 'wheel']),
    ...coordinate,
    button: z.enum(['left', 'middle', 'right']).default('left'),
    clickCount: z.number().int().min(1).max(3).default(1),
    deltaX: z.number().finite().min(-10_000).max(10_000).optional(),
    deltaY: z.number().finite().min(-10_000).max(10_000).optional(),
    modifiers,
  }),
  z.object({
    type: z.literal('key'),
    event: z.enum(['down', 'up']),
    key: z.string().min(1).max(32),
    code: z.string().max(32).optional(),
    modifiers,
  }),
  z.object({ type: z.literal('text'), text: z.string().min(1).max(10_000) }),
  z.object({ type: z.literal('navigate'), url: z.string().min(1).max(8_192) }),
  z.object({ type: z.literal('back') }),
  z.object({ type: z.literal('forward') }),
  z.object({ type: z.literal('reload') }),
  z.object({ type: z.literal('pick'), ...coordinate }),
  z.object({
    type: z.literal('record'),
    on: z.boolean({ error: 'on must be true or false' }),
    // Whether a recording begins with a step going to the page shown (a new test's first step).
    goto: z.boolean({ error: 'goto must be true or false' }).optional(),
  }),
  z.object({
    type: z.literal('replay'),
    steps: z.array(replayStep, { error: 'steps must be a list of steps' }).min(1, 'steps must not be empty'),
    vars: values,
    parameters: values,
    baseURL: z.string({ error: 'baseURL must be a string' }).max(8_192).optional(),
  }),
]);

/**
 * Why a replay's step tree is too large or too deep, walked without recursion before zod reads
 * it (a nesting thousands deep must not exhaust the stack), or null.
 */
function replayTreeRefusal(json: unknown): string | null {
  if (typeof json !== 'object' || json === null || (json as { type?: unknown }).type !== 'replay')
    return null;
  const pending: Array<{ list: unknown; depth: number }> = [
    { list: (json as { steps?: unknown }).steps, depth: 1 },
  ];
  let count = 0;
  for (let next = pending.pop(); next; next = pending.pop()) {
    if (!Array.isArray(next.list) || next.list.length === 0) continue;
    if (next.depth > maxStepDepth) return `steps: groups nest at most ${maxStepDepth} levels deep`;
    count += next.list.length;
    if (count > maxReplaySteps) return `steps: a replay runs at most ${maxReplaySteps} steps`;
    for (const step of next.list)
      if (typeof step === 'object' && step !== null)
        pending.push({ list: (step as { children?: unknown }).children, depth: next.depth + 1 });
  }
  return null;
}

export type ClientMessage = z.infer<typeof clientMessage>;

export type PickedLocator = LivePickedLocator;
export type ServerEvent = LiveServerEvent;

/** A message of the console, or the reason it is refused (sent back as an `error` event). */
export function parseClientMessage(
  raw: string,
  viewport: { width: number; height: number },
): { ok: true; message: ClientMessage } | { ok: false; error: string } {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return { ok: false, error: 'message is not JSON' };
  }
  const refusal = replayTreeRefusal(json);
  if (refusal) return { ok: false, error: refusal };
  const parsed = clientMessage.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, error: `${issue?.path.join('.') || 'message'}: ${issue?.message ?? 'invalid'}` };
  }
  const message = parsed.data;
  if ('x' in message) {
    const inside =
      message.x >= 0 && message.y >= 0 && message.x < viewport.width && message.y < viewport.height;
    if (!inside)
      return {
        ok: false,
        error: `x, y (${message.x}, ${message.y}) must be inside the viewport (${viewport.width}×${viewport.height} CSS pixels)`,
      };
  }
  return { ok: true, message };
}

/**
 * At most `perSecond` messages in any second (a token bucket: bursts up to that size, then the
 * rate): input past it is dropped and the console told once per burst.
 */
export class InputRate {
  private readonly perSecond: number;
  private tokens: number;
  private at = Date.now();

  constructor(perSecond: number) {
    this.perSecond = perSecond;
    this.tokens = perSecond;
  }

  take(): boolean {
    const now = Date.now();
    this.tokens = Math.min(this.perSecond, this.tokens + ((now - this.at) / 1000) * this.perSecond);
    this.at = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
