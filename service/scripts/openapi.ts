/**
 * Writes the service's OpenAPI document to docs/openapi.json, or with `--check` fails when the
 * committed file differs from what the routes generate (CI runs the check, as for dist/).
 * The document is built from a throw-away SQLite install with a fixed public URL, so it
 * depends on the routes only.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';

const target = fileURLToPath(new URL('../../docs/openapi.json', import.meta.url));

export async function generateOpenApi(): Promise<string> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-openapi-'));
  try {
    const config = loadConfig({
      DATA_DIR: dataDir,
      PORT: '3000',
      PUBLIC_URL: 'http://localhost:3000',
      LOG_LEVEL: 'silent',
      ADMIN_PASSWORD: 'openapi-generation',
    });
    const { app } = await buildApp({ config, background: false, logger: false });
    await app.ready();
    const document = `${JSON.stringify(app.swagger(), null, 2)}\n`;
    await app.close();
    return document;
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const document = await generateOpenApi();
  if (process.argv.includes('--check')) {
    const committed = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : '';
    if (committed !== document) {
      console.error('docs/openapi.json is stale: run `npm run openapi` and commit the result');
      process.exit(1);
    }
    console.log('docs/openapi.json is up to date');
  } else {
    fs.writeFileSync(target, document);
    console.log(`wrote ${path.relative(process.cwd(), target)}`);
  }
}
