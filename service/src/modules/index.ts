import type { AppContext } from '../context.ts';
import { accountsPlugin } from './accounts/index.ts';
import { alertsPlugin } from './alerts/index.ts';
import { auditPlugin } from './audit/index.ts';
import { environmentsPlugin } from './environments/index.ts';
import { historyPlugin } from './history/index.ts';
import { inboxesPlugin } from './inboxes/index.ts';
import { installSettingsPlugin } from './install-settings/index.ts';
import { liveSessionsPlugin } from './live-sessions/index.ts';
import { presetsPlugin } from './presets/index.ts';
import { runsPlugin } from './runs/index.ts';
import { schedulesPlugin } from './schedules/index.ts';
import { ssoPlugin } from './sso/index.ts';
import { stepsPlugin } from './steps/index.ts';
import { testsPlugin } from './tests/index.ts';
import { visualPlugin } from './visual/index.ts';
import { webhooksPlugin } from './webhooks/index.ts';

/**
 * What every module plugin is registered with. A module is a `fastify-plugin` with a `name`
 * and its `dependencies`: it decorates the instance with its service, registers its routes,
 * and (with `background`) starts its background work on `onReady` and stops it on `onClose`.
 * Fastify runs `onReady` hooks in registration order and `onClose` hooks in reverse, so a
 * module starts after, and stops before, the modules it depends on.
 */
export interface ModuleOptions {
  ctx: AppContext;
  /** Start background work (runners, SMTP, timers) with the app. Off for most API tests. */
  background: boolean;
  /** `api`: the HTTP service (and SMTP); `worker`: `npm run worker`, never listens. */
  role: 'api' | 'worker';
}

/** In dependency order (the order of registration). */
export const modulePlugins = [
  // The audit log's hooks come first, so they see every route.
  auditPlugin,
  accountsPlugin,
  ssoPlugin,
  installSettingsPlugin,
  inboxesPlugin,
  environmentsPlugin,
  presetsPlugin,
  testsPlugin,
  stepsPlugin,
  runsPlugin,
  visualPlugin,
  historyPlugin,
  webhooksPlugin,
  schedulesPlugin,
  alertsPlugin,
  liveSessionsPlugin,
];
