import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

/**
 * The service's CSP allows no inline script but the ones index.html ships: their SHA-256
 * hashes, computed from the built index.html, are written to dist/csp.json for the service
 * (service/src/plugins/console-static.ts) to add to `script-src` on the console's pages.
 */
function inlineScriptHashes(): Plugin {
  let outDir = 'dist';
  return {
    name: 'stepdeck-inline-script-hashes',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    writeBundle() {
      const html = fs.readFileSync(path.join(outDir, 'index.html'), 'utf8');
      const scriptSrc = [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map(
        (match) =>
          `'sha256-${createHash('sha256')
            .update(match[1] ?? '', 'utf8')
            .digest('base64')}'`,
      );
      fs.writeFileSync(path.join(outDir, 'csp.json'), `${JSON.stringify({ scriptSrc }, null, 2)}\n`);
    },
  };
}

const gzip = promisify(zlib.gzip);
const brotli = promisify(zlib.brotliCompress);

/**
 * Writes `<asset>.br` and `<asset>.gz` beside every text asset of 1 KB or more, at the highest
 * levels (paid once here, not per request), for the service to send as the browser accepts
 * (`preCompressed` in service/src/plugins/console-static.ts).
 */
function precompressAssets(): Plugin {
  let assetsDir = 'dist/assets';
  return {
    name: 'stepdeck-precompress-assets',
    apply: 'build',
    configResolved(config) {
      assetsDir = path.resolve(config.root, config.build.outDir, config.build.assetsDir);
    },
    async writeBundle() {
      const names = fs.readdirSync(assetsDir).filter((name) => /\.(?:js|css|svg|json|html)$/.test(name));
      await Promise.all(
        names.map(async (name) => {
          const file = path.join(assetsDir, name);
          const content = fs.readFileSync(file);
          if (content.length < 1024) return;
          const [gzipped, brotlied] = await Promise.all([
            gzip(content, { level: zlib.constants.Z_BEST_COMPRESSION }),
            brotli(content, {
              params: {
                [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY,
                [zlib.constants.BROTLI_PARAM_SIZE_HINT]: content.length,
              },
            }),
          ]);
          fs.writeFileSync(`${file}.gz`, gzipped);
          fs.writeFileSync(`${file}.br`, brotlied);
        }),
      );
    },
  };
}

// Served by the service at /console/ (service/src/plugins/console-static.ts).
export default defineConfig({
  base: '/console/',
  plugins: [react(), inlineScriptHashes(), precompressAssets()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    // The budget is checked by the benchmark (first-paint JS ≤ 200 KB as transferred).
    chunkSizeWarningLimit: 600,
  },
  server: {
    proxy: { '/v1': 'http://localhost:3000', '/console/v1': 'http://localhost:3000' },
  },
});
