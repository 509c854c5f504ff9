/**
 * One live session's page: its screencast (CDP `Page.startScreencast`, every frame acknowledged,
 * at most {@link MAX_FPS} passed on), the user's input replayed through CDP's `Input` domain,
 * navigation, the element picker, and recording (recorder.ts). The stream (routes.ts) only moves
 * messages.
 */
import type { BrowserContext, CDPSession, Page } from '@playwright/test';
import { liveReplayBusy } from '@stepdeck/contract';
import { readCandidates } from '../../runner/compiler/runtime/stepdeck-heal.ts';
import { locatorsAmong } from '../../runner/compiler/runtime/stepdeck-suggest.ts';
import type { ClientMessage, PickedLocator, ServerEvent } from './messages.ts';
import { LiveRecorder } from './recorder.ts';
import { type ReplayInput, replaySteps } from './replay.ts';

export const MAX_FPS = 10;
const frameGapMs = 1000 / MAX_FPS;

type Listener = { frame(jpeg: Buffer): void; event(event: ServerEvent): void };

/** Keys whose CDP events need a Windows virtual key code to act (Enter submits, Backspace deletes). */
const virtualKeys: Record<string, number> = {
  Backspace: 8,
  Tab: 9,
  Enter: 13,
  Escape: 27,
  PageUp: 33,
  PageDown: 34,
  End: 35,
  Home: 36,
  ArrowLeft: 37,
  ArrowUp: 38,
  ArrowRight: 39,
  ArrowDown: 40,
  Delete: 46,
};
const keyText: Record<string, string> = { Enter: '\r', Tab: '\t' };

export class LiveBrowser {
  private listener: Listener | undefined;
  private cdp: CDPSession | undefined;
  private lastSentAt = 0;
  private pendingFrame: Buffer | undefined;
  private pendingTimer: NodeJS.Timeout | undefined;
  private lastFrame: Buffer | undefined;
  private readonly recorder: LiveRecorder;
  private replayRunning = false;

  private readonly context: BrowserContext;
  readonly page: Page;
  readonly viewport: { width: number; height: number };

  constructor(context: BrowserContext, page: Page, viewport: { width: number; height: number }) {
    this.context = context;
    this.page = page;
    this.viewport = viewport;
    this.recorder = new LiveRecorder(context, page, (event) => this.emit(event));
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) this.emit({ type: 'url', url: frame.url() });
    });
    page.on('load', () => {
      void page
        .title()
        .then((title) => this.emit({ type: 'title', title }))
        .catch(() => {});
    });
    // A popup would be invisible to the user: it opens in the session's one page instead.
    context.on('page', (opened) => {
      if (opened === page) return;
      void opened.waitForLoadState('domcontentloaded').then(
        async () => {
          const url = opened.url();
          await opened.close().catch(() => {});
          if (url && url !== 'about:blank') await page.goto(url).catch(() => {});
        },
        () => {},
      );
    });
  }

  /** Starts (or restarts, for a new connection) the screencast towards `listener`. */
  async attach(listener: Listener): Promise<void> {
    // A recording belongs to the console that started it: a newer one starts with it off.
    if (this.listener && this.listener !== listener && this.recorder.recording)
      await this.recorder.stop().catch(() => {});
    this.listener = listener;
    if (this.lastFrame) listener.frame(this.lastFrame);
    listener.event({ type: 'url', url: this.page.url() });
    listener.event({ type: 'title', title: await this.page.title().catch(() => '') });
    if (this.cdp) return;
    const cdp = await this.context.newCDPSession(this.page);
    this.cdp = cdp;
    cdp.on('Page.screencastFrame', (frame) => {
      void cdp.send('Page.screencastFrameAck', { sessionId: frame.sessionId }).catch(() => {});
      this.offer(Buffer.from(frame.data, 'base64'));
    });
    await cdp.send('Page.startScreencast', {
      format: 'jpeg',
      quality: 70,
      maxWidth: this.viewport.width,
      maxHeight: this.viewport.height,
    });
  }

  detach(listener: Listener): void {
    if (this.listener !== listener) return;
    this.listener = undefined;
    // Nobody would see what is recorded: the recording ends with its console.
    if (this.recorder.recording) void this.recorder.stop().catch(() => {});
  }

  /**
   * Passes a frame on at most every {@link frameGapMs}; a frame that came too early waits, the
   * newest wins. A waiting frame counts as sent when it was due, not when the timer fired (a
   * timer always fires a little late): while the page animates, frames go out at the full rate.
   */
  private offer(jpeg: Buffer): void {
    this.lastFrame = jpeg;
    const due = this.lastSentAt + frameGapMs;
    const wait = due - Date.now();
    if (wait <= 0 && !this.pendingTimer) {
      this.send(jpeg, Date.now());
      return;
    }
    this.pendingFrame = jpeg;
    this.pendingTimer ??= setTimeout(
      () => {
        this.pendingTimer = undefined;
        const frame = this.pendingFrame;
        this.pendingFrame = undefined;
        if (frame) this.send(frame, due);
      },
      Math.max(wait, 0),
    );
  }

  private send(jpeg: Buffer, sentAt: number): void {
    this.lastSentAt = sentAt;
    this.listener?.frame(jpeg);
  }

  private emit(event: ServerEvent): void {
    this.listener?.event(event);
  }

  /** Replays one validated message of the user (messages.ts checked its shape and bounds). */
  async handle(message: Exclude<ClientMessage, { type: 'navigate' | 'replay' }>): Promise<void> {
    if (message.type === 'record')
      return message.on ? this.recorder.start({ goto: message.goto ?? true }) : this.recorder.stop();
    const cdp = this.cdp;
    if (!cdp) return;
    switch (message.type) {
      case 'mouse': {
        const type = {
          move: 'mouseMoved',
          down: 'mousePressed',
          up: 'mouseReleased',
          wheel: 'mouseWheel',
        } as const;
        await cdp.send('Input.dispatchMouseEvent', {
          type: type[message.event],
          x: message.x,
          y: message.y,
          button: message.event === 'move' || message.event === 'wheel' ? 'none' : message.button,
          clickCount: message.event === 'down' || message.event === 'up' ? message.clickCount : 0,
          deltaX: message.deltaX ?? 0,
          deltaY: message.deltaY ?? 0,
          modifiers: message.modifiers ?? 0,
        });
        return;
      }
      case 'key': {
        const text = message.event === 'down' ? (keyText[message.key] ?? printable(message.key)) : undefined;
        await cdp.send('Input.dispatchKeyEvent', {
          type: message.event === 'up' ? 'keyUp' : text ? 'keyDown' : 'rawKeyDown',
          key: message.key,
          code: message.code ?? '',
          modifiers: message.modifiers ?? 0,
          ...(text ? { text } : {}),
          ...(virtualKeys[message.key] ? { windowsVirtualKeyCode: virtualKeys[message.key] } : {}),
        });
        return;
      }
      case 'text':
        await cdp.send('Input.insertText', { text: message.text });
        return;
      case 'back':
        await this.page.goBack({ waitUntil: 'commit' });
        return;
      case 'forward':
        await this.page.goForward({ waitUntil: 'commit' });
        return;
      case 'reload':
        await this.page.reload({ waitUntil: 'commit' });
        return;
      case 'pick':
        this.emit({ type: 'picked', ...(await this.pick(message.x, message.y)) });
        return;
    }
  }

  /** A replay holds the page from the moment it is asked for: input and other replays are refused. */
  get replaying(): boolean {
    return this.replayRunning;
  }

  /**
   * Replays steps (replay.ts) once the input sent before them (`after`) has reached the page,
   * telling the console each step's start and the outcome. `checkUrl` is the session's check of
   * an address to open; `onStep` is told as each step starts (the session is not idle).
   */
  async replay(
    input: ReplayInput,
    hooks: { after: Promise<unknown>; checkUrl(url: string): Promise<string>; onStep(): void },
  ): Promise<void> {
    if (this.replayRunning) throw new Error(liveReplayBusy);
    this.replayRunning = true;
    try {
      await hooks.after.catch(() => {});
      // What the replay does would be recorded as the user's new steps.
      if (this.recorder.recording) throw new Error('stop recording before replaying steps');
      const outcome = await replaySteps(this.page, input, {
        checkUrl: hooks.checkUrl,
        progress: (done, total, step) => {
          hooks.onStep();
          this.emit({ type: 'replaying', done, total, step });
        },
      });
      this.emit({ type: 'replayed', ...outcome });
    } finally {
      this.replayRunning = false;
    }
  }

  /** Navigates once the URL was checked (service.ts): errors are the page's, shown to the user. */
  async navigate(url: string): Promise<void> {
    await this.page.goto(url, { waitUntil: 'commit' });
  }

  /**
   * The element at a point and the locators that find it, in codegen's order of preference
   * (test id, role and name, label, placeholder, text, id: stepdeck-suggest.ts), each counted
   * on the page by Playwright; those finding exactly that one element first, none finding nothing.
   */
  async pick(
    x: number,
    y: number,
  ): Promise<{
    element: { tag: string; role: string | null; name: string } | null;
    locators: PickedLocator[];
  }> {
    const [chain, candidates] = await Promise.all([
      this.page.evaluate(elementChain, { x, y }),
      readCandidates(this.page),
    ]);
    const byIndex = new Map(candidates.map((candidate) => [candidate.index, candidate]));
    const along = chain.map((index) => byIndex.get(index)).filter((found) => found !== undefined);
    // A span inside a button is picked as the button: the nearest element a locator names well.
    const picked =
      along.find((candidate) => candidate.testId || (candidate.role && candidate.name)) ?? along[0];
    if (!picked) return { element: null, locators: [] };
    const counted = await Promise.all(
      locatorsAmong(picked, candidates).map(async (entry) => ({
        ...entry,
        matches: await this.page.locator(entry.selector).count(),
      })),
    );
    const found = counted.filter((entry) => entry.matches > 0);
    const ranked = [
      ...found.filter((entry) => entry.matches === 1),
      ...found.filter((entry) => entry.matches > 1),
    ];
    return { element: { tag: picked.tag, role: picked.role, name: picked.name }, locators: ranked };
  }
}

/** A key that types a character: one character long (`a`, `é`, ` `), not a named key (`Shift`). */
const printable = (key: string) => ([...key].length === 1 ? key : undefined);

/**
 * Runs in the page: the element at the point and its ancestors, each as its position among
 * `document.body.querySelectorAll('*')` (the index stepdeck-heal.ts gives candidates).
 */
function elementChain(point: { x: number; y: number }): number[] {
  const all = document.body ? Array.from(document.body.querySelectorAll('*')) : [];
  const positions = new Map(all.map((element, index) => [element, index]));
  const out: number[] = [];
  for (let at = document.elementFromPoint(point.x, point.y); at; at = at.parentElement) {
    const index = positions.get(at);
    if (index !== undefined) out.push(index);
  }
  return out;
}
