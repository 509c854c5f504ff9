import {
  noPayloadResponse,
  ssoProviderBody,
  ssoProviderResponse,
  ssoSignOutResponse,
  uuid,
} from '@stepdeck/contract';
import { parseCookie, stringifySetCookie } from 'cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { AppError } from '../../errors.ts';
import { publicAccess, session } from '../../plugins/auth/access.ts';
import { requireUser } from '../../plugins/auth/index.ts';
import {
  clearedSessionCookieHeader,
  readSessionToken,
  sessionCookieHeader,
} from '../../plugins/auth/session-cookie.ts';
import { perAddressLimit } from '../../plugins/rate-limit.ts';
import { installOrganizationId } from '../accounts/public.ts';
import { type Attempt, flowLifetimeMs, type SignInFlow } from './flow.ts';
import { failurePage, pageSecurityPolicy } from './page.ts';
import type { SsoProviders } from './service.ts';

const tags = ['sso'];
const organizationParams = z.object({ id: uuid });
/** The attempt's sealed state between start and callback; Lax, so the provider's redirect carries it. */
const flowCookie = 'stepdeck_sso';
const flowCookiePath = '/console/v1/sso';
const htmlPage = {
  description: 'A page naming why single sign-on failed',
  content: { 'text/html': { schema: z.string() } },
};
/**
 * Sign-in starts one client address may make per minute: each one reaches the provider (and
 * seals a cookie), so a loop of them is refused with 429 long before it costs either much.
 */
export const ssoStartsPerMinute = 30;
/** A redirect: no body, the target in `Location`. */
const redirect = (description: string) => z.null().meta({ description });

export async function ssoRoutes(
  parent: FastifyInstance,
  ctx: AppContext,
  { providers, flow }: { providers: SsoProviders; flow: SignInFlow },
): Promise<void> {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  const secure = ctx.config.publicUrl.startsWith('https://');

  const flowCookieHeader = (value: string, maxAgeSeconds: number) =>
    stringifySetCookie({
      name: flowCookie,
      value,
      path: flowCookiePath,
      httpOnly: true,
      sameSite: 'lax',
      secure,
      maxAge: maxAgeSeconds,
    });

  /** A failed attempt: audited under whom it was about, answered with a page naming the problem. */
  async function fail(
    request: FastifyRequest,
    reply: FastifyReply,
    error: unknown,
    attempt: Attempt,
    typed?: string,
  ) {
    if (!(error instanceof AppError)) throw error;
    const organizationId = attempt.organizationId ?? (await installOrganizationId(ctx.db));
    if (organizationId)
      request.auditSubject = {
        kind: 'user',
        userId: attempt.userId ?? '',
        email:
          attempt.email ??
          (typed?.includes('@') ? typed.trim().toLowerCase().slice(0, 320) : 'single sign-on'),
        organizationId,
      };
    request.auditDetail = `${error.code}: ${error.message}`;
    return reply
      .code(error.statusCode)
      .header('content-security-policy', pageSecurityPolicy)
      .header('cache-control', 'no-store')
      .type('text/html; charset=utf-8')
      .send(failurePage(error));
  }

  app.get(
    '/console/v1/sso/start',
    {
      config: { access: publicAccess, rateLimit: perAddressLimit('sso-start', ssoStartsPerMinute) },
      schema: {
        summary: "Start single sign-on: redirects to the organization's identity provider",
        tags,
        querystring: z.object({
          org: z
            .string()
            .trim()
            .min(1, 'org must not be empty')
            .max(320, 'org must be at most 320 characters'),
          next: z.string().max(2048).optional(),
        }),
        response: { 302: redirect('To the provider'), 404: htmlPage, 502: htmlPage },
        'x-errors': { 429: `More than ${ssoStartsPerMinute} starts a minute from this address.` },
      },
    },
    async (request, reply) => {
      const attempt: Attempt = {};
      try {
        const started = await flow.start(request.query.org, request.query.next, attempt);
        return reply
          .header('set-cookie', flowCookieHeader(started.cookie, flowLifetimeMs / 1000))
          .header('cache-control', 'no-store')
          .redirect(started.location, 302);
      } catch (error) {
        return fail(request, reply, error, attempt, request.query.org);
      }
    },
  );

  app.get(
    '/console/v1/sso/callback',
    {
      config: { access: publicAccess },
      schema: {
        summary: "The identity provider's redirect: verifies it, opens a console session",
        tags,
        // What providers send back; any other parameter is passed on to the verification as is.
        querystring: z.looseObject({
          code: z.string().optional(),
          state: z.string().optional(),
          iss: z.string().optional(),
          error: z.string().optional(),
          error_description: z.string().optional(),
        }),
        response: {
          302: redirect('Into the console'),
          400: htmlPage,
          403: htmlPage,
          404: htmlPage,
          409: htmlPage,
          502: htmlPage,
        },
      },
    },
    async (request, reply) => {
      const attempt: Attempt = {};
      const rawQuery = request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '';
      const cookie = request.headers.cookie ? parseCookie(request.headers.cookie)[flowCookie] : undefined;
      // Used once, whatever the outcome.
      reply.header('set-cookie', flowCookieHeader('', 0));
      try {
        const done = await flow.finish(request.query, rawQuery, cookie, attempt);
        const { member } = done;
        request.auditSubject = {
          kind: 'user',
          userId: member.userId,
          email: member.email,
          organizationId: attempt.organizationId as string,
        };
        request.auditDetail = [
          member.previousRole === null
            ? `Signed in with single sign-on: account created as ${member.role}`
            : member.previousRole !== member.role
              ? `Signed in with single sign-on: role ${member.previousRole} → ${member.role}`
              : `Signed in with single sign-on as ${member.role}`,
          member.keysRevoked > 0 ? `API keys revoked: ${member.keysRevoked}` : undefined,
        ]
          .filter(Boolean)
          .join('; ');
        reply.header('set-cookie', [
          flowCookieHeader('', 0),
          sessionCookieHeader(done.token, { secure, maxAgeSeconds: done.maxAgeSeconds }),
        ]);
        return reply.header('cache-control', 'no-store').redirect(`/console${done.next}`, 302);
      } catch (error) {
        return fail(request, reply, error, attempt);
      }
    },
  );

  app.post(
    '/console/v1/sso/sign-out',
    {
      config: { access: session('read') },
      schema: {
        summary: "Sign out, and learn where to end the identity provider's session too",
        response: { 200: ssoSignOutResponse },
        tags,
      },
    },
    async (request, reply) => {
      const user = requireUser(request);
      const token = readSessionToken(request);
      const endSessionUrl = await flow.endSessionUrl(user.organizationId, token);
      if (token) await providers.endSession(token);
      reply.header('set-cookie', clearedSessionCookieHeader());
      return { data: { endSessionUrl } };
    },
  );

  app.get(
    '/console/v1/sso/provider',
    {
      // The organization's admins read how their people sign in; install admins change it.
      config: { access: session('change') },
      schema: {
        summary: "Read your organization's single sign-on provider (admins; never its secret)",
        response: { 200: ssoProviderResponse },
        tags,
      },
    },
    async (request) => ({ data: await providers.read(requireUser(request).organizationId) }),
  );

  app.get(
    '/console/v1/install/organizations/:id/sso',
    {
      config: { access: session('installAdmin') },
      schema: {
        summary: "Read an organization's single sign-on provider (never its secret)",
        response: { 200: ssoProviderResponse },
        tags: ['install'],
        params: organizationParams,
      },
    },
    async (request) => ({ data: await providers.read(request.params.id) }),
  );
  app.put(
    '/console/v1/install/organizations/:id/sso',
    {
      config: { access: session('installAdmin') },
      schema: {
        summary:
          "Set an organization's single sign-on provider (clientSecret: required the first time, write-only)",
        response: { 200: ssoProviderResponse },
        tags: ['install'],
        params: organizationParams,
        body: ssoProviderBody,
      },
    },
    async (request) => ({ data: await providers.save(request.params.id, request.body) }),
  );
  app.delete(
    '/console/v1/install/organizations/:id/sso',
    {
      config: { access: session('installAdmin') },
      schema: {
        summary: "Remove an organization's single sign-on provider (passwords work again)",
        response: { 200: noPayloadResponse },
        tags: ['install'],
        params: organizationParams,
      },
    },
    async (request) => {
      await providers.remove(request.params.id);
      return { data: null };
    },
  );
}
