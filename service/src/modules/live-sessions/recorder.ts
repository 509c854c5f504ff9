/**
 * Recording in a live session: Playwright's own recorder (the one behind `playwright codegen`)
 * turned on in the session's browser context, its actions mapped to steps by the mapper that
 * `stepdeck record` uses (`mapRecording` in the contract), and what is new sent to the console.
 *
 * The recorder is started through its programmatic entry point (`BrowserContext._startRecording`,
 * private, as `_showRecorder` is for the CLI), in its JSONL language: it hands over each action
 * as the very line codegen's JSONL output holds for it, the moment it is recorded. The
 * `outputFile` route the CLI takes exists only with the inspector window (`_showRecorder`
 * launches a second Chromium for it and rewrites the whole file on a timer), so here nothing is
 * written to disk and nothing outlives the session. The recorder's toolbar is drawn in the page
 * itself, so its assert tools (visibility, text, value) show in the streamed frames and work by
 * clicking them there.
 */
import type { BrowserContext, Page } from '@playwright/test';
import { mapRecording, parseRecording } from '@stepdeck/contract';
import type { ServerEvent } from './messages.ts';

/** Actions one recording keeps: past this it stops (a test is not thousands of steps). */
export const MAX_RECORDED_ACTIONS = 1_000;

type Sink = (page: unknown, data: unknown, code: string) => void;
/** The private recorder API of Playwright's BrowserContext (what its MCP server records with). */
interface RecordingContext {
  _startRecording?(
    params: { language: string },
    sink: { actionAdded: Sink; actionUpdated: Sink; signalAdded: Sink },
  ): Promise<void>;
  _stopRecording?(): Promise<void>;
}

export class LiveRecorder {
  /** The recording's JSONL lines: the page it began on, then the recorder's own. */
  private lines: string[] = [];
  private fromRecorder = 0;
  /** The steps sent so far (as JSON), to send only what changed. */
  private sent: string[] = [];
  private sentUnmapped = 0;
  private state: 'off' | 'on' | 'stopping' = 'off';
  private stopping: Promise<void> | undefined;

  private readonly context: BrowserContext;
  private readonly page: Page;
  private readonly emit: (event: ServerEvent) => void;

  constructor(context: BrowserContext, page: Page, emit: (event: ServerEvent) => void) {
    this.context = context;
    this.page = page;
    this.emit = emit;
  }

  get recording(): boolean {
    return this.state !== 'off';
  }

  /**
   * Starts a recording. With `goto`, its first step goes to the page shown now, as codegen's
   * recording starts with the page it opens: a new test's first step. Without it, the recording
   * goes on from the page shown (a test whose earlier steps, replayed, led there).
   */
  async start(options: { goto: boolean }): Promise<void> {
    // A console that went away stops its recording without waiting: a new one starts after it.
    if (this.stopping) await this.stopping.catch(() => {});
    if (this.state !== 'off') return this.emit({ type: 'recording', on: true });
    const context = this.context as unknown as RecordingContext;
    if (typeof context._startRecording !== 'function')
      throw new Error("this Playwright has no recorder to start (the context's _startRecording)");
    this.lines = [];
    this.fromRecorder = 0;
    this.sent = [];
    this.sentUnmapped = 0;
    const url = this.page.url();
    if (options.goto && /^https?:/i.test(url))
      this.lines.push(JSON.stringify({ name: 'navigate', url, signals: [] }));
    this.state = 'on';
    try {
      await context._startRecording(
        { language: 'jsonl' },
        {
          actionAdded: (_page, _data, code) => this.take(code, 'add'),
          // Typing on in the same field, and signals (a popup, a download) of the last action,
          // come as that action written anew.
          actionUpdated: (_page, _data, code) => this.take(code, 'replace'),
          signalAdded: (_page, _data, code) => this.take(code, 'replace'),
        },
      );
    } catch (error) {
      this.state = 'off';
      throw error;
    }
    this.emit({ type: 'recording', on: true });
    this.publish();
  }

  /** Stops the recording; what the recorder still held back (a click it waits on) comes first. */
  async stop(): Promise<void> {
    if (this.stopping) return this.stopping;
    if (this.state === 'off') return this.emit({ type: 'recording', on: false });
    this.state = 'stopping';
    this.stopping = (async () => {
      try {
        // Turning the recorder off flushes its pending action through the sink before returning.
        await (this.context as unknown as RecordingContext)._stopRecording?.();
      } finally {
        this.state = 'off';
        this.stopping = undefined;
        this.emit({ type: 'recording', on: false });
      }
    })();
    return this.stopping;
  }

  private take(code: string, how: 'add' | 'replace'): void {
    if (this.state === 'off' || !code.trim()) return;
    if (how === 'replace' && this.fromRecorder > 0) this.lines[this.lines.length - 1] = code;
    else {
      this.lines.push(code);
      this.fromRecorder++;
    }
    this.publish();
    if (this.fromRecorder >= MAX_RECORDED_ACTIONS && this.state === 'on') {
      this.emit({
        type: 'error',
        message: `Recording stopped: one recording keeps at most ${MAX_RECORDED_ACTIONS} actions`,
      });
      void this.stop().catch(() => {});
    }
  }

  /** Maps the whole recording again and sends the steps that differ from those sent before. */
  private publish(): void {
    let mapped: ReturnType<typeof mapRecording>;
    try {
      mapped = mapRecording(parseRecording(this.lines.join('\n')));
    } catch (error) {
      this.emit({ type: 'error', message: error instanceof Error ? error.message : String(error) });
      return;
    }
    const now = mapped.steps.map((step) => JSON.stringify(step));
    let same = 0;
    while (same < this.sent.length && same < now.length && this.sent[same] === now[same]) same++;
    const replaces = this.sent.length - same;
    const unmapped = mapped.unmapped.slice(this.sentUnmapped);
    if (replaces === 0 && same === now.length && unmapped.length === 0) return;
    this.sent = now;
    this.sentUnmapped = mapped.unmapped.length;
    this.emit({ type: 'recorded', steps: mapped.steps.slice(same), replaces, unmapped });
  }
}
