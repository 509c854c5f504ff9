import { readFileSync } from 'node:fs';
import { compileProject, executeProject } from '../src/runner/index.ts';
import { startSite, step, tempDir, uiTest } from '../test/runner/fixtures.ts';

const site = await startSite();
const tests = Array.from({ length: 4 }, (_, i) =>
  uiTest(
    `c${i}000000-0000-4000-8000-00000000000${i}`,
    `T${i}`,
    [
      step('Open', { name: 'goto', url: '/' }),
      step('Heading', { name: 'assertText', selector: '#heading', value: 'Welcome' }),
      step('Wait', { name: 'wait', ms: 1000 }),
    ],
    { config: { use: { baseURL: site.url } } },
  ),
);
const dir = await tempDir('gap');
const result = await executeProject({
  dir,
  project: compileProject({ tests, config: null, secretNames: [] }),
  env: { DEBUG: process.env.PWDBG ?? 'pw:api' },
  signal: new AbortController().signal,
  timeoutMs: 120_000,
});
console.log(dir, result.status);
const report = JSON.parse(readFileSync(result.jsonReportPath, 'utf8'));
const walk = (s: any) => {
  for (const spec of s.specs ?? [])
    for (const t of spec.tests)
      for (const r of t.results) {
        console.log(spec.title, r.startTime, r.duration);
        for (const c of r.stderr) process.stdout.write('   ' + (c.text ?? ''));
      }
  for (const c of s.suites ?? []) walk(c);
};
for (const s of report.suites) walk(s);
console.log('STDOUT', result.stdout?.slice?.(-3000));
await site.close();
