import { parseCookie, stringifySetCookie } from 'cookie';
import type { FastifyRequest } from 'fastify';

export const sessionCookie = 'stepdeck_session';

/*
 * Only console routes use a cookie, so it is read and written here on demand rather than by
 * @fastify/cookie's global hooks, which would add work to every API request.
 */
export function readSessionToken(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  return parseCookie(header)[sessionCookie] || undefined;
}

export function sessionCookieHeader(
  token: string,
  options: { secure: boolean; maxAgeSeconds: number },
): string {
  return stringifySetCookie({
    name: sessionCookie,
    value: token,
    path: '/',
    httpOnly: true,
    sameSite: 'strict',
    secure: options.secure,
    maxAge: options.maxAgeSeconds,
  });
}

export const clearedSessionCookieHeader = (): string =>
  stringifySetCookie({
    name: sessionCookie,
    value: '',
    path: '/',
    httpOnly: true,
    sameSite: 'strict',
    expires: new Date(0),
  });
