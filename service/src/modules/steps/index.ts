import type { ServiceModule } from '../index.ts';
import { stepsRoutes } from './routes.ts';

export const stepsModule: ServiceModule = { name: 'steps', routes: stepsRoutes };
