import { readdirSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { commandLine, parentOf } from '../test/runner/fixtures.ts';

const b = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH, args: ['--no-sandbox'] });
const p = await (await b.newContext()).newPage();
await p.goto('data:text/html,hi');
for (const e of readdirSync('/proc'))
  if (/^\d+$/.test(e)) {
    const c = commandLine(+e);
    if (c.includes('remote-debugging-pipe')) console.log(e, parentOf(+e), c.slice(0, 150));
  }
await b.close();
