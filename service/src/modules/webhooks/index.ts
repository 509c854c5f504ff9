import type { ServiceModule } from '../index.ts';

// Routes and background work of this module are added by its issue.
export const webhooksModule: ServiceModule = { name: 'webhooks' };
