import fp from 'fastify-plugin';
import type { ModuleOptions } from '../index.ts';
import { stepLimitsOf } from '../step-trees/public.ts';
import { copyBranchTests } from './branches.ts';
import { testsRoutes } from './routes.ts';
import { secretsRoutes } from './secrets-routes.ts';
import { TestsService } from './service.ts';
import { TransferService } from './transfer.ts';

/** Tests, directories and their revisions (`/v1/tests/*`), import and export, project secrets. */
export const testsPlugin = fp<ModuleOptions>(
  async (app, { ctx }) => {
    if (!ctx.branchCopiers.includes(copyBranchTests)) ctx.branchCopiers.push(copyBranchTests);
    const limits = stepLimitsOf(ctx.config);
    const service = new TestsService({
      db: ctx.db,
      blobs: ctx.blobs,
      clock: ctx.clock,
      reads: ctx.database.reads,
      limits,
      deleteGuards: ctx.deleteGuards.tests,
    });
    const transfer = new TransferService({
      db: ctx.db,
      blobs: ctx.blobs,
      clock: ctx.clock,
      tests: service,
      limits,
    });
    await testsRoutes(app, ctx, { service, transfer });
    await secretsRoutes(app, ctx);
  },
  { name: 'tests', dependencies: ['accounts'] },
);
