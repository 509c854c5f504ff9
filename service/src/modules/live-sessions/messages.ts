/**
 * What travels over a live session's WebSocket. Server → console: binary messages are JPEG
 * frames of the page; text messages are the JSON {@link ServerEvent}s. Console → server: the
 * JSON {@link ClientMessage}s, checked here (shape, and coordinates inside the viewport in the
 * page's CSS pixels) before anything reaches the browser.
 */
import type { LivePickedLocator, LiveServerEvent } from '@stepdeck/contract';
import { z } from 'zod';

const modifiers = z.number().int().min(0).max(15).optional();
const coordinate = { x: z.number().finite(), y: z.number().finite() };

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
  z.object({ type: z.literal('record'), on: z.boolean({ error: 'on must be true or false' }) }),
]);

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
