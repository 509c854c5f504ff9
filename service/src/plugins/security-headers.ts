import { createHash } from 'node:crypto';
import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';

/**
 * The Content-Security-Policy of every response, in one place so the console and its trace
 * viewer can adjust it. What they need and why:
 * - scripts only from this origin (no inline script: the console is a bundled React app);
 * - inline styles (React style props, the trace viewer's snapshots of recorded pages);
 * - `blob:`/`data:` images, media, frames and workers (the trace viewer's service worker,
 *   screenshots and snapshots of recorded pages rendered in same-origin iframes);
 * - framed only by this origin (`frame-ancestors 'self'`: the trace viewer frames its
 *   snapshots; no other site may frame the console).
 */
export const contentSecurityPolicy: Record<string, string[]> = {
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'style-src': ["'self'", "'unsafe-inline'"],
  'img-src': ["'self'", 'data:', 'blob:'],
  'font-src': ["'self'", 'data:'],
  'media-src': ["'self'", 'data:', 'blob:'],
  'connect-src': ["'self'", 'data:', 'blob:'],
  'worker-src': ["'self'", 'blob:'],
  'frame-src': ["'self'", 'data:', 'blob:'],
  'object-src': ["'none'"],
  'base-uri': ["'self'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'self'"],
};

/**
 * The policy as a header value, with extra `script-src` sources (the hashes of the console's
 * inline start-up script, computed when the console is built).
 */
export function contentSecurityPolicyHeader(extraScriptSrc: readonly string[] = []): string {
  return Object.entries(contentSecurityPolicy)
    .map(([name, values]) => [name, ...values, ...(name === 'script-src' ? extraScriptSrc : [])].join(' '))
    .join(';');
}

/**
 * The `'sha256-…'` sources of an HTML page's inline scripts (those without `src`), hashed over
 * their exact text as CSP does, so that page alone may run them.
 */
export function inlineScriptHashes(html: string): string[] {
  return [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map(
    (match) =>
      `'sha256-${createHash('sha256')
        .update(match[1] ?? '', 'utf8')
        .digest('base64')}'`,
  );
}

/**
 * Security headers on every response (API JSON included: inbox messages carry HTML as
 * received, so `X-Content-Type-Options: nosniff` keeps a browser from rendering it).
 */
export async function registerSecurityHeaders(app: FastifyInstance): Promise<void> {
  await app.register(helmet, {
    global: true,
    contentSecurityPolicy: { useDefaults: false, directives: contentSecurityPolicy },
    // The trace viewer loads snapshots and workers cross-context; COEP would block them.
    crossOriginEmbedderPolicy: false,
    // Signed artifact URLs are opened from other origins (CI logs, the action's summary).
    crossOriginResourcePolicy: { policy: 'same-site' },
    frameguard: { action: 'sameorigin' },
    // HSTS belongs to the TLS terminator; the service itself often runs on plain http.
    strictTransportSecurity: false,
    referrerPolicy: { policy: 'no-referrer' },
  });
}
