import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { appError } from '../errors.ts';
import { contentSecurityPolicyHeader, inlineScriptHashes } from './security-headers.ts';

/** The console's Vite build (console/dist), built by `npm run build` or before `npm start`. */
export const consoleDistDir = fileURLToPath(new URL('../../../console/dist/', import.meta.url));

/**
 * Playwright's trace viewer: the static app behind trace.playwright.dev, shipped inside the
 * installed playwright-core, so opening a trace uploads nothing and works offline.
 */
export function traceViewerDir(): string {
  const require = createRequire(import.meta.url);
  const corePackage = require.resolve('playwright-core/package.json');
  return path.join(path.dirname(corePackage), 'lib', 'vite', 'traceViewer');
}

const hidden = { schema: { hide: true } };

/**
 * Serves the web console at `/console/`: Vite's hashed assets cached for good and sent
 * precompressed (brotli or gzip), `index.html` never cached, and every other `/console/*` path
 * answered with `index.html` so the client router can show it (except `/console/v1/*`, the
 * console API, which keeps its JSON 404s).
 * Playwright's trace viewer lives at `/console/trace/`, its own directory so that its service
 * worker's scope covers only the viewer.
 */
export async function registerConsoleStatic(app: FastifyInstance, options: { distDir?: string } = {}) {
  const distDir = options.distDir ?? consoleDistDir;
  app.get('/', hidden, async (_request, reply) => reply.redirect('/console/', 302));

  // The viewer's index.html ends with an inline script (a message for file:// pages) that the
  // plain policy blocks, logging a CSP error on every opening. Only that page gets the hash of
  // exactly that script, read from the installed playwright-core, so an upgrade needs no edit.
  const viewerDir = traceViewerDir();
  const viewerIndex = path.join(viewerDir, 'index.html');
  const viewerPolicy = fs.existsSync(viewerIndex)
    ? contentSecurityPolicyHeader(inlineScriptHashes(fs.readFileSync(viewerIndex, 'utf8')))
    : undefined;
  await app.register(fastifyStatic, {
    root: viewerDir,
    prefix: '/console/trace/',
    wildcard: false,
    // Not hashed by name (index.html, sw.bundle.js): revalidate so a Playwright upgrade shows at once.
    cacheControl: false,
    setHeaders: (reply, filePath) => {
      reply.header('cache-control', 'no-cache');
      if (viewerPolicy && path.resolve(filePath) === viewerIndex)
        reply.header('content-security-policy', viewerPolicy);
    },
  });

  const built = fs.existsSync(path.join(distDir, 'index.html'));
  if (built) {
    await app.register(fastifyStatic, {
      root: path.join(distDir, 'assets'),
      prefix: '/console/assets/',
      wildcard: false,
      decorateReply: false,
      maxAge: '365d',
      immutable: true,
      // The build writes each asset's `.br` and `.gz` beside it (console/vite.config.ts): the one
      // the client accepts is sent with its Content-Encoding and `Vary: Accept-Encoding`.
      preCompressed: true,
    });
  }

  // index.html's inline start-up script is allowed by its hash, written by the console's build.
  const consolePolicy = contentSecurityPolicyHeader(built ? readInlineScriptHashes(distDir) : []);
  const sendIndex = async (request: { method: string; url: string }, reply: FastifyReply) => {
    const pathname = request.url.split('?')[0] ?? '';
    if (pathname.startsWith('/console/v1/')) throw appError('ROUTE_NOT_FOUND', request.method, pathname);
    if (!built) {
      return reply
        .code(503)
        .type('text/plain; charset=utf-8')
        .send('The console is not built: run `npm run build` (npm start builds it when missing).');
    }
    return reply
      .header('cache-control', 'no-cache')
      .header('content-security-policy', consolePolicy)
      .type('text/html; charset=utf-8')
      .send(await fs.promises.readFile(path.join(distDir, 'index.html')));
  };
  app.get('/console', hidden, async (_request, reply) => reply.redirect('/console/', 302));
  app.get('/console/', hidden, sendIndex);
  app.get('/console/*', hidden, sendIndex);
}

/** `dist/csp.json` (console/vite.config.ts): the `'sha256-…'` sources of index.html's inline scripts. */
function readInlineScriptHashes(distDir: string): string[] {
  const file = path.join(distDir, 'csp.json');
  if (!fs.existsSync(file)) return [];
  const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as { scriptSrc?: unknown };
  const sources = Array.isArray(parsed.scriptSrc) ? parsed.scriptSrc : [];
  return sources.filter((source): source is string => /^'sha256-[A-Za-z0-9+/]+=*'$/.test(String(source)));
}
