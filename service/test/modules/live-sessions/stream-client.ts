/** A real WebSocket client of a live session's stream, for the live-session tests. */
import WebSocket from 'ws';

export type Event = { type: string; [key: string]: unknown };

/** A stream's messages as they come: JPEG frames and JSON events. */
export function connect(url: string, cookie: string, origin: string) {
  const socket = new WebSocket(url, { headers: { cookie }, origin });
  const frames: Buffer[] = [];
  const events: Event[] = [];
  const waiters: Array<() => void> = [];
  socket.on('message', (data: Buffer, binary: boolean) => {
    if (binary) frames.push(data);
    else events.push(JSON.parse(data.toString()) as Event);
    for (const wake of waiters.splice(0)) wake();
  });
  const until = async <T>(find: () => T | undefined, what: string, ms = 20_000): Promise<T> => {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = find();
      if (found !== undefined) return found;
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${what}; events: ${JSON.stringify(events)}`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  };
  const opened = new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  const send = (message: object) => socket.send(JSON.stringify(message));
  return { socket, frames, events, until, opened, send };
}
