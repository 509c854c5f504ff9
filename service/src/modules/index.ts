import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import { consoleModule } from './console/index.ts';
import { inboxesModule } from './inboxes/index.ts';
import { runsModule } from './runs/index.ts';
import { schedulesModule } from './schedules/index.ts';
import { stepsModule } from './steps/index.ts';
import { testsModule } from './tests/index.ts';
import { webhooksModule } from './webhooks/index.ts';

/**
 * A feature of the service: its HTTP routes and, optionally, background work (runners,
 * SMTP, timers) started with the app and stopped on close.
 */
export interface ServiceModule {
  name: string;
  routes?(app: FastifyInstance, ctx: AppContext): Promise<void>;
  start?(ctx: AppContext): Promise<() => Promise<void>>;
}

export const serviceModules: ServiceModule[] = [
  consoleModule,
  testsModule,
  stepsModule,
  runsModule,
  webhooksModule,
  inboxesModule,
  schedulesModule,
];
