import type { ServiceModule } from '../index.ts';
import { copyBranchTests } from './branches.ts';
import { testsRoutes } from './routes.ts';
import { secretsRoutes } from './secrets-routes.ts';

export const testsModule: ServiceModule = {
  name: 'tests',
  async routes(app, ctx) {
    if (!ctx.branchCopiers.includes(copyBranchTests)) ctx.branchCopiers.push(copyBranchTests);
    await testsRoutes(app, ctx);
    await secretsRoutes(app, ctx);
  },
};
