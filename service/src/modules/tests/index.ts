import fp from 'fastify-plugin';
import type { ModuleOptions } from '../index.ts';
import { copyBranchTests } from './branches.ts';
import { testsRoutes } from './routes.ts';
import { secretsRoutes } from './secrets-routes.ts';

export const testsPlugin = fp<ModuleOptions>(
  async (app, { ctx }) => {
    if (!ctx.branchCopiers.includes(copyBranchTests)) ctx.branchCopiers.push(copyBranchTests);
    await testsRoutes(app, ctx);
    await secretsRoutes(app, ctx);
  },
  { name: 'tests', dependencies: ['console', 'steps'] },
);
