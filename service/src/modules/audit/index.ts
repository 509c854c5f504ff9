import fp from 'fastify-plugin';
import type { ModuleOptions } from '../index.ts';
import { auditRoutes, defaultAuditRetentionDays } from './routes.ts';
import { AuditLog } from './service.ts';

/** Registered before the other modules: its hooks are global and see every route's request. */
export const auditPlugin = fp<ModuleOptions>(
  async (app, { ctx }) => {
    const audit = new AuditLog({
      db: ctx.db,
      clock: ctx.clock,
      retentionDays: ctx.config.auditRetentionDays ?? defaultAuditRetentionDays,
    });
    await auditRoutes(app, ctx, audit);
  },
  { name: 'audit' },
);
