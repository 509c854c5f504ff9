import { afterEach, describe, expect, it } from 'vitest';
import { Poller } from '../src/poller.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A pass the test holds open until it lets it go. */
function gate() {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/** A poller whose passes are counted, with the most that ever ran at once. */
function counted(options: { intervalMs: number; pass?: (n: number) => Promise<unknown> }) {
  const state = { passes: 0, running: 0, mostAtOnce: 0, errors: [] as unknown[] };
  const poller = new Poller({
    intervalMs: options.intervalMs,
    pass: async () => {
      state.passes += 1;
      state.running += 1;
      state.mostAtOnce = Math.max(state.mostAtOnce, state.running);
      try {
        return await options.pass?.(state.passes);
      } finally {
        state.running -= 1;
      }
    },
    onError: (error) => state.errors.push(error),
  });
  return { poller, state };
}

const pollers: Poller[] = [];
afterEach(async () => {
  for (const poller of pollers.splice(0)) await poller.stop();
});
const track = <T extends { poller: Poller }>(made: T): T => {
  pollers.push(made.poller);
  return made;
};

describe('Poller', () => {
  it('passes at start, then once per interval after each pass', async () => {
    const { poller, state } = track(counted({ intervalMs: 40 }));
    poller.start();
    await poller.idle();
    expect(state.passes).toBe(1);
    await sleep(210);
    // 40 ms apart after the first: about five more; timers on a loaded machine may slip.
    expect(state.passes).toBeGreaterThanOrEqual(3);
    expect(state.passes).toBeLessThanOrEqual(7);
  });

  it('does nothing on a wake before start', async () => {
    const { poller, state } = track(counted({ intervalMs: 10 }));
    poller.wake();
    await sleep(40);
    expect(state.passes).toBe(0);
  });

  it('a wake while idle passes at once, long before the interval', async () => {
    const { poller, state } = track(counted({ intervalMs: 60_000 }));
    poller.start();
    await poller.idle();
    poller.wake();
    await poller.idle();
    expect(state.passes).toBe(2);
  });

  it('coalesces the wakes that arrive during a pass into one more pass, never two at once', async () => {
    const held = gate();
    const { poller, state } = track(
      counted({ intervalMs: 60_000, pass: async (n) => (n === 1 ? held.opened : undefined) }),
    );
    poller.start();
    await sleep(5);
    for (let i = 0; i < 5; i += 1) poller.wake();
    expect(state.passes).toBe(1);
    held.open();
    await poller.idle();
    expect(state.passes).toBe(2);
    expect(state.mostAtOnce).toBe(1);
    await sleep(30);
    expect(state.passes).toBe(2);
  });

  it('stop waits for the pass in flight, and no pass starts afterwards', async () => {
    const held = gate();
    let ended = false;
    const { poller, state } = track(
      counted({
        intervalMs: 5,
        pass: async (n) => {
          if (n !== 1) return;
          await held.opened;
          ended = true;
        },
      }),
    );
    poller.start();
    await sleep(5);
    poller.wake();
    let stopped = false;
    const stopping = poller.stop().then(() => {
      stopped = true;
    });
    await sleep(20);
    expect(stopped).toBe(false);
    expect(poller.stopped).toBe(true);
    held.open();
    await stopping;
    expect(ended).toBe(true);
    // The wake made during the pass was dropped by the stop, and so are later wakes and timers.
    poller.wake();
    await sleep(30);
    expect(state.passes).toBe(1);
  });

  it('reports a failing pass and keeps going', async () => {
    const { poller, state } = track(
      counted({
        intervalMs: 10,
        pass: async (n) => {
          if (n === 1) throw new Error('database unreachable');
        },
      }),
    );
    poller.start();
    await sleep(60);
    expect(state.errors.map((error) => (error as Error).message)).toEqual(['database unreachable']);
    expect(state.passes).toBeGreaterThan(1);
  });

  it('looks again sooner when a pass names an earlier time than the interval', async () => {
    const { poller, state } = track(
      counted({ intervalMs: 60_000, pass: async (n) => (n < 3 ? 10 : undefined) }),
    );
    poller.start();
    await sleep(100);
    expect(state.passes).toBe(3);
  });

  it('starts again after a stop', async () => {
    const { poller, state } = track(counted({ intervalMs: 60_000 }));
    poller.start();
    await poller.stop();
    poller.start();
    await poller.idle();
    expect(state.passes).toBe(2);
    expect(poller.stopped).toBe(false);
  });
});
