import { chromium } from 'playwright-core';

const mode = process.argv[2];
if (mode === 'launch') {
  const t = performance.now();
  const b = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
  });
  const c = await b.newContext({ viewport: { width: 1920, height: 1080 } });
  const p = await c.newPage();
  console.error('launch+page', (performance.now() - t).toFixed(0), 'ms');
  await c.close();
  await b.close();
}
