import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import { appError } from '../../errors.ts';
import { requireCallerScope } from '../../plugins/auth/index.ts';
import { findBranch } from '../accounts/public.ts';
import type { Scope } from './present.ts';

/** The active project and branch; `branch` in the query overrides `x-branch-id`. */
export async function scopeOf(
  ctx: AppContext,
  request: FastifyRequest,
  branchOverride?: string,
): Promise<Scope> {
  const { principal, project, branch } = requireCallerScope(request);
  let branchId = branch.id;
  if (branchOverride) {
    const found = await findBranch(ctx.db, branchOverride, project.id);
    if (!found) throw appError('BRANCH_NOT_FOUND');
    branchId = found.id;
  }
  return { organizationId: principal.organizationId, projectId: project.id, branchId };
}
