import type { Config } from '../../config.ts';
import { type Resolver, systemResolver } from './url-guard.ts';

/** Every CIDR exempt from the private-address rule now: the environment's and the install's. */
export async function allowedTargetsNow(settings: WebhookSettings): Promise<string[]> {
  return [...settings.allowedTargets, ...(await settings.installAllowedTargets())];
}

/** The spec's receiver contract: HTTP 200 within 10 seconds. */
export const defaultDeadlineMs = 10_000;
/** Attempt n is due this long after attempt n-1 failed: at once, +1 s, +5 s; three attempts. */
export const defaultAttemptDelaysMs: readonly number[] = [0, 1_000, 5_000];

export interface WebhookSettings {
  resolve: Resolver;
  /** Normalised CIDRs exempt from the private-address rule (WEBHOOK_ALLOWED_TARGETS). */
  allowedTargets: string[];
  /**
   * The install admins' allow-list (install settings), read at each check: in effect in
   * production too, where WEBHOOK_ALLOWED_TARGETS must stay empty.
   */
  installAllowedTargets: () => Promise<string[]>;
  /** Extra CA to trust for receivers (tests); real installs use NODE_EXTRA_CA_CERTS. */
  ca?: string;
  deadlineMs: number;
  attemptDelaysMs: readonly number[];
  /** How often an idle instance looks for due deliveries written by others or left by a restart. */
  pollIntervalMs: number;
  /** Attempts in flight at once per instance. */
  concurrency: number;
  /**
   * Keep connections (and TLS sessions) per checked target between attempts (default). Off:
   * a new connection and full TLS handshake per attempt (the benchmark's baseline).
   */
  reuseConnections: boolean;
}

/** The settings an app starts with: defaults, and the allowed targets of its config. */
export function defaultWebhookSettings(
  config: Pick<Config, 'webhookAllowedTargets'>,
  installAllowedTargets: () => Promise<string[]> = async () => [],
): WebhookSettings {
  return {
    resolve: systemResolver,
    allowedTargets: config.webhookAllowedTargets ?? [],
    installAllowedTargets,
    deadlineMs: defaultDeadlineMs,
    attemptDelaysMs: defaultAttemptDelaysMs,
    pollIntervalMs: 1_000,
    concurrency: 64,
    reuseConnections: true,
  };
}
