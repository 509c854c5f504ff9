import { randomUUID } from 'node:crypto';
import { refusedUrlReason } from '@stepdeck/contract';
import type { AppContext } from '../../context.ts';
import { appError } from '../../errors.ts';
import { EgressPolicy, type EgressRules, type OwnPort } from '../../runner/egress.ts';
import { defaultResolver, type EgressProxy, startEgressProxy } from '../../runner/egress-proxy.ts';
import { findProject } from '../accounts/public.ts';
import { effectiveInstallSettings } from '../install-settings/public.ts';
import { type LaunchedBrowser, launchLiveBrowser, NoBrowserError } from './launch.ts';
import { LiveBrowser } from './live-browser.ts';
import type { ServerEvent } from './messages.ts';

export interface LiveSessionOwner {
  userId: string;
  organizationId: string;
}

export interface LiveSession extends LiveSessionOwner {
  id: string;
  projectId: string;
  testId: string | null;
  startedAt: Date;
  browser: LiveBrowser;
  viewport: { width: number; height: number };
  /** Told when the session ends (the open stream closes with the reason). */
  onEnd: Set<(reason: string) => void>;
}

interface Entry extends LiveSession {
  launched: LaunchedBrowser;
  idleTimer: NodeJS.Timeout;
  hardTimer: NodeJS.Timeout;
}

export const defaultViewport = { width: 1280, height: 720 };

/**
 * Live browser sessions of this process, in memory (a session is a browser process here: it
 * cannot outlive the process, so nothing is stored). One per user, `LIVE_SESSIONS_MAX` in all,
 * each ended after its idle time without input, after its hard limit, at sign-out or on DELETE.
 */
export class LiveSessionsService {
  private readonly sessions = new Map<string, Entry>();
  /** Users whose session is starting (counted against the limits while Chromium launches). */
  private readonly starting = new Set<string>();
  private proxy: Promise<EgressProxy> | undefined;
  private installRules: EgressRules = { deny: [], allow: [] };
  private readonly limits: { max: number; idleMs: number; maxMs: number };

  private readonly ctx: AppContext;
  /** The ports this process listens on (HTTP), which a session may not reach, as for runs. */
  private readonly listening: () => OwnPort[];

  constructor(ctx: AppContext, listening: () => OwnPort[]) {
    this.ctx = ctx;
    this.listening = listening;
    this.limits = ctx.config.liveSessions ?? { max: 4, idleMs: 600_000, maxMs: 3_600_000 };
  }

  /** The console's address, whose origin may open a session's stream. */
  get publicUrl(): string {
    return this.ctx.config.publicUrl;
  }

  async start(
    owner: LiveSessionOwner,
    input: { projectId: string; url: string; testId?: string; viewport?: { width: number; height: number } },
  ): Promise<LiveSession> {
    if (!(await findProject(this.ctx.db, owner.organizationId, input.projectId)))
      throw appError('PROJECT_NOT_FOUND');
    const url = await this.checkUrl(input.url);
    const held = [...this.sessions.values()].some((session) => session.userId === owner.userId);
    if (held || this.starting.has(owner.userId)) throw appError('LIVE_SESSION_PER_USER');
    if (this.sessions.size + this.starting.size >= this.limits.max)
      throw appError('LIVE_SESSIONS_FULL', this.limits.max);
    this.starting.add(owner.userId);
    try {
      const viewport = input.viewport ?? defaultViewport;
      const proxy = await this.egressProxy();
      let launched: LaunchedBrowser;
      try {
        launched = await launchLiveBrowser({
          isolation: this.ctx.config.runnerIsolation,
          proxy: proxy.url,
          viewport,
        });
      } catch (error) {
        if (error instanceof NoBrowserError)
          throw appError('LIVE_SESSION_BROWSER_UNAVAILABLE', error.message);
        throw error;
      }
      const page = launched.context.pages()[0] ?? (await launched.context.newPage());
      const id = randomUUID();
      const entry: Entry = {
        id,
        ...owner,
        projectId: input.projectId,
        testId: input.testId ?? null,
        startedAt: this.ctx.clock.now(),
        browser: new LiveBrowser(launched.context, page, viewport),
        viewport,
        onEnd: new Set(),
        launched,
        idleTimer: this.timer(
          id,
          this.limits.idleMs,
          `Session ended after ${minutes(this.limits.idleMs)} idle`,
        ),
        hardTimer: this.timer(
          id,
          this.limits.maxMs,
          `Session ended after its limit of ${minutes(this.limits.maxMs)}`,
        ),
      };
      this.sessions.set(id, entry);
      // The page's own failure (a site that is down) is shown in the session, not a failed start.
      await page.goto(url, { waitUntil: 'commit' }).catch(() => {});
      return entry;
    } finally {
      this.starting.delete(owner.userId);
    }
  }

  /** The caller's own session; another user's, or another organization's, is not found. */
  get(owner: LiveSessionOwner, projectId: string, id: string): LiveSession {
    const session = this.sessions.get(id);
    if (
      !session ||
      session.userId !== owner.userId ||
      session.organizationId !== owner.organizationId ||
      session.projectId !== projectId
    )
      throw appError('LIVE_SESSION_NOT_FOUND');
    return session;
  }

  /** Input arrived: the idle time starts again. */
  touch(id: string): void {
    const entry = this.sessions.get(id);
    if (!entry) return;
    clearTimeout(entry.idleTimer);
    entry.idleTimer = this.timer(
      id,
      this.limits.idleMs,
      `Session ended after ${minutes(this.limits.idleMs)} idle`,
    );
  }

  async navigate(id: string, url: string): Promise<ServerEvent | null> {
    const entry = this.sessions.get(id);
    if (!entry) return null;
    try {
      await entry.browser.navigate(await this.checkUrl(url));
      return null;
    } catch (error) {
      return { type: 'error', message: error instanceof Error ? error.message : String(error) };
    }
  }

  async end(owner: LiveSessionOwner, projectId: string, id: string): Promise<void> {
    this.get(owner, projectId, id);
    await this.close(id, 'Session closed');
  }

  /** At sign-out: the user's sessions end with the console session. */
  async endAllOf(userId: string): Promise<void> {
    const ids = [...this.sessions.values()]
      .filter((entry) => entry.userId === userId)
      .map((entry) => entry.id);
    await Promise.all(ids.map((id) => this.close(id, 'Session ended: you signed out')));
  }

  async close(id: string, reason: string): Promise<void> {
    const entry = this.sessions.get(id);
    if (!entry) return;
    this.sessions.delete(id);
    clearTimeout(entry.idleTimer);
    clearTimeout(entry.hardTimer);
    for (const listener of entry.onEnd) listener(reason);
    await entry.launched.close();
  }

  async stop(): Promise<void> {
    await Promise.all([...this.sessions.keys()].map((id) => this.close(id, 'The service is shutting down')));
    const proxy = this.proxy;
    this.proxy = undefined;
    await (await proxy?.catch(() => undefined))?.close();
  }

  /**
   * The URL a session may open, as a run's navigation is judged: http or https only (the step
   * rule), and the runner's egress rules on every address the host resolves to, with the same
   * message. The egress proxy checks every connection of the session again.
   */
  async checkUrl(url: string): Promise<string> {
    const schemeReason = refusedUrlReason(url, 'navigation');
    if (schemeReason) throw appError('LIVE_SESSION_URL_REFUSED', schemeReason);
    // An empty page to start from, when the test has no base URL yet.
    if (url.trim().toLowerCase() === 'about:blank') return 'about:blank';
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw appError('LIVE_SESSION_URL_REFUSED', 'must be an absolute http or https URL');
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      throw appError('LIVE_SESSION_URL_REFUSED', 'must be an absolute http or https URL');
    const host = parsed.hostname.replace(/^\[|\]$/g, '');
    const port = Number(parsed.port) || (parsed.protocol === 'https:' ? 443 : 80);
    // A name that does not resolve is the page's error to show, as in a run.
    const addresses = await defaultResolver(host).then(
      (found) => found.map((entry) => entry.address),
      () => [],
    );
    await this.refreshInstallRules();
    const verdict = this.policy().check({ host, port, addresses });
    if (!verdict.allowed) throw appError('LIVE_SESSION_URL_REFUSED', verdict.reason);
    return parsed.href;
  }

  private policy(): EgressPolicy {
    const environment = this.ctx.config.runnerEgress ?? { deny: [], allow: [] };
    return new EgressPolicy({
      deny: [...environment.deny, ...this.installRules.deny],
      allow: [...environment.allow, ...this.installRules.allow],
      ownPorts: () => this.ownPorts(),
    });
  }

  private ownPorts(): OwnPort[] {
    const configured = [
      { port: this.ctx.config.port, name: 'HTTP' },
      { port: this.ctx.config.smtpPort, name: 'SMTP' },
    ];
    return [...configured, ...this.listening()].filter((own) => own.port > 0);
  }

  private async refreshInstallRules(): Promise<void> {
    try {
      this.installRules = (await effectiveInstallSettings(this.ctx.db)).runnerEgress ?? this.installRules;
    } catch (error) {
      this.ctx.log.error({ err: error }, 'could not read the install egress rules');
    }
  }

  /** The sessions' own egress proxy, with the runner's rules (started with the first session). */
  private egressProxy(): Promise<EgressProxy> {
    this.proxy ??= startEgressProxy({
      deny: this.ctx.config.runnerEgress?.deny ?? [],
      allow: this.ctx.config.runnerEgress?.allow ?? [],
      ownPorts: () => this.ownPorts(),
      extraRules: () => this.installRules,
    });
    return this.proxy;
  }

  private timer(id: string, ms: number, reason: string): NodeJS.Timeout {
    const timer = setTimeout(() => void this.close(id, reason), ms);
    timer.unref();
    return timer;
  }
}

const minutes = (ms: number) => {
  if (ms < 60_000) return `${Math.round(ms / 1000)} seconds`;
  const count = Math.round(ms / 60_000);
  return count === 1 ? '1 minute' : `${count} minutes`;
};
