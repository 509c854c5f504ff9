import type { ServiceModule } from '../index.ts';
import { consoleRoutes } from './routes.ts';

export const consoleModule: ServiceModule = { name: 'console', routes: consoleRoutes };
