import {
  consoleApiKeysResponse,
  consoleBranchesResponse,
  consoleBranchResponse,
  consoleMemberResponse,
  consoleOrganizationResponse,
  consoleProjectResponse,
  consoleProjectsResponse,
  consoleTagResponse,
  consoleTagsResponse,
  consoleUserResponse,
  consoleUsersResponse,
  createdApiKeyResponse,
  createdOrganizationResponse,
  createdUserResponse,
  installOrganizationCreateBody,
  limitsBody,
  noPayloadResponse,
  organizationLimitsResponse,
  passwordChangeBody,
  roleChangeBody,
  scope,
  signInResponse,
  subscriptionBody,
  subscriptionResponse,
  userRemovalQuery,
  uuid,
} from '@stepdeck/contract';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { AppError, appError } from '../../errors.ts';
import { publicAccess, session } from '../../plugins/auth/access.ts';
import { requireUser } from '../../plugins/auth/index.ts';
import {
  clearedSessionCookieHeader,
  readSessionToken,
  sessionCookieHeader,
} from '../../plugins/auth/session-cookie.ts';
import { browserAvailability } from '../../runner/browser-builds.ts';
import { adminEmail, removeBootstrapFile } from './bootstrap-file.ts';
import type { InstallService } from './install-service.ts';
import { changeRole, keysDetail, removeUser } from './members.ts';
import { changeOwnPassword } from './password.ts';
import type { ConsoleService } from './service.ts';
import type { SignInThrottle } from './sign-in-throttle.ts';

const tags = ['console'];
const name = z.string().trim().min(1, 'must not be empty').max(128, 'must be at most 128 characters');
const idParams = z.object({ id: uuid });
const projectParams = z.object({ projectId: uuid });
const role = z.enum(['owner', 'admin', 'member']);

export async function consoleRoutes(
  parent: FastifyInstance,
  ctx: AppContext,
  {
    service,
    install,
    throttle,
  }: { service: ConsoleService; install: InstallService; throttle: SignInThrottle },
): Promise<void> {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  const secureCookie = ctx.config.publicUrl.startsWith('https://');

  app.post(
    '/console/v1/session',
    {
      config: { access: publicAccess },
      schema: {
        summary: 'Sign in',
        response: { 200: signInResponse },
        tags,
        body: z.object({ email: z.string().min(1), password: z.string().min(1) }),
      },
    },
    async (request, reply) => {
      const { email, password } = request.body;
      let session: Awaited<ReturnType<ConsoleService['signIn']>>;
      try {
        const retryAfter = throttle.retryAfterSeconds(email, request.ip);
        if (retryAfter > 0) {
          throw appError('SIGN_IN_THROTTLED').retryAfter(retryAfter);
        }
        const delay = throttle.delayMs(email, request.ip);
        if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
        try {
          session = await service.signIn(email, password);
        } catch (error) {
          if (error instanceof AppError && error.statusCode === 401)
            throttle.recordFailure(email, request.ip);
          throw error;
        }
      } catch (error) {
        // A failed sign-in is audited under the account tried (the password never is).
        const subject = await service.signInSubject(email);
        if (subject) request.auditSubject = { kind: 'user', ...subject };
        if (error instanceof AppError && error.code === 'SSO_REQUIRED')
          request.auditDetail = 'Password refused: the organization requires single sign-on';
        throw error;
      }
      throttle.recordSuccess(email, request.ip);
      if (session.user.email === adminEmail) removeBootstrapFile(ctx.config.dataDir);
      reply.header(
        'set-cookie',
        sessionCookieHeader(session.token, { secure: secureCookie, maxAgeSeconds: session.maxAgeSeconds }),
      );
      return { data: session.user };
    },
  );

  app.get(
    '/console/v1/session',
    {
      config: { access: session('read') },
      schema: { summary: 'Read the signed-in user', response: { 200: consoleUserResponse }, tags },
    },
    async (request) => {
      const user = requireUser(request);
      return {
        data: {
          id: user.userId,
          email: user.email,
          role: user.role,
          organizationId: user.organizationId,
          installAdmin: user.installAdmin,
        },
      };
    },
  );

  app.put(
    '/console/v1/session/password',
    {
      // Every role changes its own password (the current one is asked again).
      config: { access: session('read') },
      schema: {
        summary: 'Change your own password (other sessions end)',
        response: { 200: noPayloadResponse },
        tags,
        body: passwordChangeBody,
      },
    },
    async (request) => {
      const user = requireUser(request);
      // The current password is a guess like a sign-in's: the same throttle answers guessing.
      const retryAfter = throttle.retryAfterSeconds(user.email, request.ip);
      if (retryAfter > 0) {
        throw appError('PASSWORD_CHANGE_THROTTLED').retryAfter(retryAfter);
      }
      try {
        await changeOwnPassword(ctx.db, user, {
          ...request.body,
          sessionToken: readSessionToken(request) ?? '',
        });
      } catch (error) {
        if (error instanceof AppError && error.code === 'WRONG_CURRENT_PASSWORD')
          throttle.recordFailure(user.email, request.ip);
        throw error;
      }
      throttle.recordSuccess(user.email, request.ip);
      return { data: null };
    },
  );

  app.delete(
    '/console/v1/session',
    {
      config: { access: session('read') },
      schema: { summary: 'Sign out', response: { 200: noPayloadResponse }, tags },
    },
    async (request, reply) => {
      const token = readSessionToken(request);
      if (token) await service.signOut(token);
      reply.header('set-cookie', clearedSessionCookieHeader());
      return { data: null };
    },
  );

  app.post(
    '/console/v1/api-keys',
    {
      config: { access: session('change') },
      schema: {
        summary: 'Create an API key',
        response: { 201: createdApiKeyResponse },
        tags,
        body: z.object({ name, scopes: z.array(scope, { error: 'scopes must be an array of scopes' }) }),
      },
    },
    async (request, reply) => {
      const key = await service.createApiKey(requireUser(request), request.body.name, request.body.scopes);
      return reply.code(201).send({ data: key });
    },
  );
  app.get(
    '/console/v1/api-keys',
    {
      config: { access: session('read') },
      schema: { summary: 'List API keys', response: { 200: consoleApiKeysResponse }, tags },
    },
    async (request) => ({
      data: await service.listApiKeys(requireUser(request)),
    }),
  );
  app.post(
    '/console/v1/api-keys/:id/revoke',
    {
      config: { access: session('change') },
      schema: { summary: 'Revoke an API key', response: { 200: noPayloadResponse }, tags, params: idParams },
    },
    async (request) => {
      await service.revokeApiKey(requireUser(request), request.params.id);
      return { data: null };
    },
  );
  app.delete(
    '/console/v1/api-keys/:id',
    {
      config: { access: session('change') },
      schema: { summary: 'Delete an API key', response: { 200: noPayloadResponse }, tags, params: idParams },
    },
    async (request) => {
      await service.deleteApiKey(requireUser(request), request.params.id);
      return { data: null };
    },
  );

  app.post(
    '/console/v1/projects',
    {
      config: { access: session('change') },
      schema: {
        summary: 'Create a project',
        response: { 201: consoleProjectResponse },
        tags,
        body: z.object({ name }),
      },
    },
    async (request, reply) => {
      const project = await service.createProject(requireUser(request), request.body.name);
      return reply.code(201).send({ data: project });
    },
  );
  app.get(
    '/console/v1/projects',
    {
      config: { access: session('read') },
      schema: { summary: 'List projects', response: { 200: consoleProjectsResponse }, tags },
    },
    async (request) => ({
      data: await service.listProjects(requireUser(request)),
    }),
  );
  app.post(
    '/console/v1/projects/:projectId/branches',
    {
      config: { access: session('change') },
      schema: {
        summary: 'Create a branch',
        response: { 201: consoleBranchResponse },
        tags,
        params: projectParams,
        body: z.object({ name, sourceBranchId: uuid.optional() }),
      },
    },
    async (request, reply) => {
      const branch = await service.createBranch(
        requireUser(request),
        request.params.projectId,
        request.body,
        ctx.branchCopiers,
      );
      return reply.code(201).send({ data: branch });
    },
  );
  app.get(
    '/console/v1/projects/:projectId/branches',
    {
      config: { access: session('read') },
      schema: {
        summary: 'List the branches of a project',
        response: { 200: consoleBranchesResponse },
        tags,
        params: projectParams,
      },
    },
    async (request) => ({
      data: await service.listBranches(requireUser(request), request.params.projectId),
    }),
  );

  app.post(
    '/console/v1/tags',
    {
      config: { access: session('change') },
      schema: {
        summary: 'Create a tag',
        response: { 201: consoleTagResponse },
        tags,
        body: z.object({ name }),
      },
    },
    async (request, reply) => {
      const tag = await service.createTag(requireUser(request), request.body.name);
      return reply.code(201).send({ data: tag });
    },
  );
  app.get(
    '/console/v1/tags',
    {
      config: { access: session('read') },
      schema: { summary: 'List tags', response: { 200: consoleTagsResponse }, tags },
    },
    async (request) => ({
      data: await service.listTags(requireUser(request)),
    }),
  );
  app.delete(
    '/console/v1/tags/:id',
    {
      config: { access: session('change') },
      schema: { summary: 'Delete a tag', response: { 200: noPayloadResponse }, tags, params: idParams },
    },
    async (request) => {
      await service.deleteTag(requireUser(request), request.params.id);
      return { data: null };
    },
  );

  app.put(
    '/console/v1/subscription',
    {
      // Billing is the install's: an organization's owners read it, install admins set it.
      config: { access: session('installAdmin') },
      schema: {
        summary: "Set your organization's subscription (install admins)",
        response: { 200: subscriptionResponse },
        tags,
        body: subscriptionBody,
      },
    },
    async (request) => ({
      data: await install.setSubscription(requireUser(request).organizationId, request.body.active),
    }),
  );
  app.get(
    '/console/v1/organization',
    {
      config: { access: session('read') },
      schema: { summary: 'Read the organization', response: { 200: consoleOrganizationResponse }, tags },
    },
    async (request) => {
      const user = requireUser(request);
      return {
        data: {
          ...(await service.organization(user)),
          quotas: await install.quotasOf(user.organizationId),
          // The browsers a run may name, and why one is not offered (its build is not installed).
          browsers: browserAvailability(),
        },
      };
    },
  );
  app.put(
    '/console/v1/organization/limits',
    {
      // Limits share the install's runner slots: install admins set them.
      config: { access: session('installAdmin') },
      schema: {
        summary: "Set your organization's limits (install admins; the cap is at most the runner slots)",
        response: { 200: organizationLimitsResponse },
        tags,
        body: limitsBody,
      },
    },
    async (request) => {
      const { limits, detail } = await install.setLimits(requireUser(request).organizationId, request.body);
      request.auditDetail = detail;
      return { data: limits };
    },
  );

  app.post(
    '/console/v1/users',
    {
      config: { access: session('change') },
      schema: {
        summary: 'Create a user',
        response: { 201: createdUserResponse },
        tags,
        body: z.object({
          email: z.email({ error: 'email must be an email address' }),
          password: z.string().min(8, 'password must be at least 8 characters'),
          role,
        }),
      },
    },
    async (request, reply) => {
      const user = await service.createUser(requireUser(request), request.body);
      return reply.code(201).send({ data: user });
    },
  );
  app.get(
    '/console/v1/users',
    {
      config: { access: session('read') },
      schema: { summary: 'List users', response: { 200: consoleUsersResponse }, tags },
    },
    async (request) => ({
      data: await service.listUsers(requireUser(request)),
    }),
  );

  // Roles are the owners' to change; the last owner stays.
  app.put(
    '/console/v1/users/:id',
    {
      config: { access: session('change') },
      schema: {
        summary: "Change a user's role (owners)",
        response: { 200: consoleMemberResponse },
        tags,
        params: idParams,
        body: roleChangeBody,
      },
    },
    async (request) => {
      const changed = await changeRole(ctx.db, requireUser(request), request.params.id, {
        ...request.body,
        now: ctx.clock.now(),
      });
      if (changed.keys) request.auditDetail = keysDetail(changed.keys);
      return { data: changed.member };
    },
  );
  app.delete(
    '/console/v1/users/:id',
    {
      config: { access: session('change') },
      schema: {
        summary: 'Remove a user (their API keys are revoked unless revokeKeys=false)',
        response: { 200: noPayloadResponse },
        tags,
        params: idParams,
        querystring: userRemovalQuery,
      },
    },
    async (request) => {
      const keys = await removeUser(ctx.db, requireUser(request), request.params.id, {
        revokeKeys: request.query.revokeKeys !== 'false',
        now: ctx.clock.now(),
      });
      request.auditDetail = keysDetail(keys);
      return { data: null };
    },
  );

  app.post(
    '/console/v1/organizations',
    {
      config: { access: session('installAdmin') },
      schema: {
        summary: 'Create an organization (install admins; also POST /console/v1/install/organizations)',
        response: { 201: createdOrganizationResponse },
        tags,
        body: installOrganizationCreateBody,
      },
    },
    async (request, reply) => {
      if (!requireUser(request).installAdmin) throw appError('INSTALL_OWNER_REQUIRED');
      const org = await install.createOrganization(request.body);
      return reply.code(201).send({ data: org });
    },
  );
}
