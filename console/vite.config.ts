import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
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

// Served by the service at /console/ (service/src/plugins/console-static.ts).
export default defineConfig({
  base: '/console/',
  plugins: [react(), inlineScriptHashes()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    // The budget is checked by the benchmark (first-paint JS ≤ 200 KB gzip).
    chunkSizeWarningLimit: 600,
  },
  server: {
    proxy: { '/v1': 'http://localhost:3000', '/console/v1': 'http://localhost:3000' },
  },
});
