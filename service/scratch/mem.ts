import { readFileSync } from 'node:fs';
import { compileProject, executeProject } from '../src/runner/index.ts';
import { stopStandbyRunners, waitingStandbys } from '../src/runner/standby.ts';
import { commandLine, descendantsOf, startSite, step, tempDir, uiTest } from '../test/runner/fixtures.ts';

const site = await startSite();
const project = compileProject({
  tests: [
    uiTest('abababab-0000-4000-8000-0000000000d1', 'x', [step('Open', { name: 'goto', url: site.url })]),
  ],
  config: null,
  secretNames: [],
});
await executeProject({ dir: await tempDir('mem'), project, env: {}, signal: new AbortController().signal });
await new Promise((r) => setTimeout(r, 6000));
const pss = (pid: number) => {
  try {
    const m = /^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return Number(m?.[1] ?? 0);
  } catch {
    return 0;
  }
};
for (const sup of waitingStandbys()) {
  const all = [sup, ...descendantsOf(sup)];
  const chrome = all.filter((p) => /chrom|headless/.test(commandLine(p)) && !commandLine(p).includes('node'));
  console.log(
    'standby total PSS MB',
    (all.reduce((a, p) => a + pss(p), 0) / 1024).toFixed(0),
    'chromium PSS MB',
    (chrome.reduce((a, p) => a + pss(p), 0) / 1024).toFixed(0),
    chrome.length,
    'processes',
  );
}
stopStandbyRunners();
await site.close();
