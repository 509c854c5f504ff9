import fs from 'node:fs';
import path from 'node:path';
import type { RunTestResult } from '@stepdeck/contract';
import { marked, type Tokens } from 'marked';
import { describe, expect, it } from 'vitest';
import { annotationsFor } from '../src/report/annotations.ts';
import { junitXml } from '../src/report/junit.ts';
import { commentMaxChars, resultsMarkdown, summaryMaxChars } from '../src/report/markdown.ts';
import { mergeRuns } from '../src/results.ts';
import { base, projectId, runDetail, uuid } from './fixtures.ts';

type Case = Partial<RunTestResult> & { name: string; status: string };

const step = (stepId: string, name: string, action: string | null, pathNames: string[]) => ({
  failedStep: { stepId, name, action, path: pathNames },
});

/** The failure cases a run reports (step, action, expectation), as the service reports them with its step-level fields. */
const cases: Case[] = [
  {
    name: 'Greeting',
    status: 'failed',
    duration: 2300,
    ...step('s4', 'check', 'assertText #out', ['check']),
    expected: '"Bye Ada"',
    received: '"Hello Ada"',
    errorMessage:
      'Step "check" (assertText #out) failed\nExpected: "Bye Ada"\nReceived: "Hello Ada"\nTimeout 5000ms exceeded.',
    errorLocation: 'check',
    errorDetail:
      'Error: expect(locator).toHaveText(expected) failed\n\n  16 |   await sd.step(s0, "check", null,',
  },
  {
    name: 'Missing button',
    status: 'failed',
    duration: 30_000,
    ...step('s2', 'press pay', 'click #pay', ['press pay']),
    errorMessage:
      'Step "press pay" (click #pay) timed out after 30000 ms waiting for #pay: no element matches the selector',
    errorLocation: 'press pay',
  },
  {
    name: 'Home | landing',
    status: 'failed',
    duration: 900,
    ...step('s1', 'open', 'goto /', ['open']),
    errorMessage: 'Step "open" (goto /) could not load http://localhost:1/: net::ERR_CONNECTION_REFUSED',
    errorLocation: 'open',
  },
  {
    name: 'Checkout',
    status: 'failed',
    duration: 4100,
    ...step('s9', 'total shown', 'assertText .total', ['Cart', 'Pay', 'total shown']),
    expected: '"<b>42 €</b> | incl. VAT"',
    received: '"<br> 0 €"',
    errorMessage:
      'Step "Cart › Pay › total shown" failed\nExpected: "<b>42 €</b> | incl. VAT"\nReceived: "<br> 0 €"\n\nUse `**` and _ and [links](x) and &amp; literally',
    errorLocation: 'Cart › Pay › total shown',
  },
  {
    name: 'Login (shared)',
    status: 'failed',
    duration: 1500,
    ...step('s3', 'submit', 'click button[type=submit]', ['Log in (shared step)', 'submit']),
    errorMessage:
      'Step "Log in › submit" failed: element is not enabled\n```\ncode fence in the message\n```',
    errorLocation: 'Log in (shared step) › submit',
  },
  {
    name: 'API status',
    status: 'failed',
    duration: 120,
    ...step('a2', 'created', 'assertStatus 201', ['create user', 'created']),
    expected: '201',
    received: '500',
    errorMessage: 'Step "create user › created" (assertStatus 201) failed\nExpected: 201\nReceived: 500',
    errorLocation: 'create user › created',
  },
  {
    name: 'API body',
    status: 'failed',
    duration: 130,
    ...step('a3', 'user json', 'assertJson $.name', ['user json']),
    expected: '"Ada"',
    received: 'null',
    errorMessage: 'Step "user json" (assertJson $.name) failed\nExpected: "Ada"\nReceived: null',
    errorLocation: 'user json',
  },
  { name: 'Sometimes slow', status: 'passed', duration: 3000, flaky: true, attempts: 2 },
  { name: 'About page', status: 'passed', duration: 800 },
  { name: 'Legal page', status: 'skipped', duration: 0 },
];

const results = (tests: Case[]) =>
  mergeRuns([runDetail(uuid(10), 'failed', tests).data], { baseUrl: base, projectId, timedOut: false });

const golden = (name: string, text: string) => {
  const file = path.join(import.meta.dirname, 'golden', name);
  if (process.env.UPDATE_GOLDEN === '1') fs.writeFileSync(file, text);
  expect(text).toBe(fs.readFileSync(file, 'utf8'));
};

/** What a reader sees: the rendered HTML's text, entities decoded once. */
const visibleText = (html: string) =>
  html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

/** Renders through a GFM parser and checks what GitHub would show. */
function checkRendered(markdown: string, rows: number) {
  const tokens = marked.lexer(markdown, { gfm: true });
  const tables = tokens.filter((token): token is Tokens.Table => token.type === 'table');
  expect(tables).toHaveLength(1);
  const table = tables[0] as Tokens.Table;
  expect(table.header.map((cell) => cell.text)).toEqual([
    'Test',
    'Status',
    'Failing step',
    'Reason',
    'Duration',
    'Run',
  ]);
  expect(table.rows).toHaveLength(rows);
  for (const row of table.rows) expect(row).toHaveLength(6);
  const html = marked.parse(markdown, { gfm: true, async: false });
  // No entity shown as text (the old `&lt;br>`) but the one a fixture message holds literally;
  // no markup made out of a message.
  expect(visibleText(html).replaceAll('and &amp; literally', '')).not.toMatch(/&(lt|gt|amp|quot|#\d+);/);
  expect(html).not.toMatch(/<br>|<b>/);
  for (const row of table.rows)
    for (const cell of row) expect(cell.tokens.map((token) => token.type)).not.toContain('strong');
  return { table, html, text: visibleText(html) };
}

describe('job summary and PR comment markdown', () => {
  it('the failure cases: golden file, a valid table, one <details> per failure', () => {
    const markdown = resultsMarkdown(results(cases), { title: 'Stepdeck CI/e2e' });
    golden('summary.md', markdown);
    const { table, html, text } = checkRendered(markdown, cases.length);
    const cellText = (rowIndex: number, column: number) =>
      visibleText(marked.parseInline(table.rows[rowIndex]?.[column]?.text ?? '') as string).trim();
    // Failed first (report order), then flaky, then passed and skipped.
    expect(table.rows.map((row) => visibleText(marked.parseInline(row[0]?.text ?? '') as string))).toEqual([
      'Greeting',
      'Missing button',
      'Home | landing',
      'Checkout',
      'Login (shared)',
      'API status',
      'API body',
      'Sometimes slow',
      'About page',
      'Legal page',
    ]);
    expect(cellText(0, 2)).toBe('check (assertText #out)');
    expect(cellText(0, 3)).toBe('expected "Bye Ada", received "Hello Ada"');
    expect(cellText(3, 2)).toBe('Cart › Pay › total shown (assertText .total)');
    // `|` and HTML inside a cell stay text.
    expect(cellText(3, 3)).toBe('expected "<b>42 €</b> | incl. VAT", received "<br> 0 €"');
    expect(cellText(5, 3)).toBe('expected 201, received 500');
    expect(cellText(1, 3)).toMatch(/^Step "press pay" \(click #pay\) timed out after 30000 ms/);
    expect(cellText(7, 1)).toBe('⚠️ flaky');
    expect(cellText(7, 3)).toBe('passed on a retry');
    expect(table.rows[0]?.[5]?.text).toContain(`/runs/${uuid(10)}`);
    // The full messages, collapsible, code fences inside messages kept intact.
    expect(html.match(/<details>/g)).toHaveLength(7);
    expect(text).toContain('Use `**` and _ and [links](x) and &amp; literally');
    expect(text).toContain('```\ncode fence in the message\n```');
    expect(markdown).toContain('<summary>❌ Checkout › Cart › Pay › total shown</summary>');
    expect(markdown).toContain('**1** flaky');
    // No generated code and no server path reached the markdown.
    expect(markdown).not.toContain('sd.step');
    expect(markdown).not.toContain('/tmp/');
  });

  it('an older service without the step fields: Playwright text degrades to a readable row', () => {
    const legacy: Case[] = [
      {
        name: 'Greeting',
        status: 'failed',
        duration: 2000,
        errorMessage:
          'Error: expect(locator).toHaveText(expected) failed\n\nLocator: locator(\'#out\')\nExpected string: "Bye Ada"\nReceived string: "Hello Ada"\nTimeout: 5000ms',
        errorLocation: 'tests/greeting-fd175221.spec.ts:18:46',
      },
    ];
    const markdown = resultsMarkdown(results(legacy), { title: 'Stepdeck legacy' });
    golden('legacy.md', markdown);
    const { table } = checkRendered(markdown, 1);
    expect(table.rows[0]?.[2]?.text).toBe('');
    expect(table.rows[0]?.[3]?.text).toBe('expected "Bye Ada", received "Hello Ada"');
  });

  it('failures classed against history: each row says new, known, flaky or quarantined, and the head counts them', () => {
    const classed = results(cases.slice(0, 4));
    const triages = ['new', 'known', 'quarantined', 'new'] as const;
    classed.tests.forEach((test, index) => {
      test.triage = triages[index];
    });
    const markdown = resultsMarkdown(classed, { title: 'Stepdeck triage' });
    const { table } = checkRendered(markdown, 4);
    const status = (index: number) =>
      visibleText(marked.parseInline(table.rows[index]?.[1]?.text ?? '') as string);
    expect(status(0)).toBe('❌ failed · 🆕 new');
    expect(status(1)).toContain('known: failing on the base branch too');
    expect(status(2)).toContain('🔒 quarantined: does not fail the check');
    expect(markdown).toContain(
      'Failures against history: **2** new failures · **1** known · **1** quarantined',
    );
    // Without triage (an older service), nothing is said.
    expect(resultsMarkdown(results(cases.slice(0, 4)))).not.toContain('against history');
  });

  it('500 failures stay within 65536 characters per comment and 1 MiB per summary', () => {
    const many: Case[] = Array.from({ length: 500 }, (_, index) => ({
      name: `Test ${index} | with a long name ${'x'.repeat(60)}`,
      status: 'failed',
      duration: 1000 + index,
      ...step(`s${index}`, 'check', 'assertText #out', ['Group', 'check']),
      expected: `"${'e'.repeat(200)}"`,
      received: `"${'r'.repeat(200)}"`,
      errorMessage: `Step failed\n${'line of detail\n'.repeat(400)}`,
    }));
    const comment = resultsMarkdown(results(many), { maxChars: commentMaxChars });
    expect(comment.length + 200).toBeLessThanOrEqual(65_536);
    // As many rows as fit, each a well-formed row of the one table.
    const written = comment.split('\n').filter((line) => line.startsWith('| Test ')).length - 1;
    expect(written).toBeGreaterThan(100);
    expect(written).toBeLessThan(500);
    checkRendered(comment, written);
    expect(comment).toMatch(/…and \d+ more tests \(\d+ of them failed\), left out/);
    const summary = resultsMarkdown(results(many), { maxChars: summaryMaxChars });
    expect(Buffer.byteLength(summary)).toBeLessThanOrEqual(1024 * 1024);
    const summaryTable = marked.lexer(summary).find((t): t is Tokens.Table => t.type === 'table');
    // The summary's bigger budget holds every row, and the details that fit.
    expect(summaryTable?.rows).toHaveLength(500);
    for (const row of summaryTable?.rows ?? []) expect(row).toHaveLength(6);
    expect(summary).toContain('<details>');
    // Each message is cut with a marker.
    expect(summary).toMatch(/… \[cut: \d+ more characters\]/);
  });
});

describe('annotations, JUnit and results for step-level failures', () => {
  it('annotation: title test › step, message the expectation then the message', () => {
    const [first, , , checkout] = annotationsFor(results(cases));
    expect(first).toEqual({
      title: 'Greeting › check',
      message: expect.stringMatching(
        /^expected "Bye Ada", received "Hello Ada"\nStep "check" \(assertText #out\) failed\n/,
      ),
    });
    expect(checkout?.title).toBe('Checkout › Cart › Pay › total shown');
    expect(first?.file).toBeUndefined();
  });

  it('JUnit: short failure message, full detail in the body, flaky as passed with a note', () => {
    const xml = junitXml(results(cases));
    expect(xml).toContain(
      '<failure message="Greeting › check: expected &quot;Bye Ada&quot;, received &quot;Hello Ada&quot;" type="failed">Step &quot;check&quot; (assertText #out) failed\nExpected: &quot;Bye Ada&quot;',
    );
    expect(xml).toContain('--- Playwright output ---\nError: expect(locator).toHaveText(expected) failed');
    expect(xml).toMatch(
      /<testcase classname="stepdeck" name="Sometimes slow" time="3.000">\n {6}<system-out>flaky: passed on a retry/,
    );
    expect(xml).toContain('failures="7"');
  });

  it('results: flaky counted as passed and named, step fields carried', () => {
    const merged = results(cases);
    expect(merged.stats).toMatchObject({ passed: 2, failed: 7, skipped: 1, flaky: 1 });
    expect(merged.tests.find((test) => test.name === 'Sometimes slow')).toMatchObject({ flaky: true });
    expect(merged.tests[0]).toMatchObject({
      failedStep: { stepId: 's4', action: 'assertText #out', path: ['check'] },
      expected: '"Bye Ada"',
      received: '"Hello Ada"',
    });
  });
});

describe('visual changes in the job summary and PR comment', () => {
  it('counts them, links the run’s review page and lists each change', () => {
    const detail = runDetail(uuid(10), 'failed', [
      { name: 'Home', status: 'failed', errorMessage: 'Screenshot differs: 1.25 % of pixels' },
      { name: 'Cart', status: 'passed' },
    ]).data;
    if (detail.report)
      detail.report.visualChanges = [
        {
          testId: uuid(900),
          testName: 'Home',
          stepId: 's1',
          status: 'changed',
          diffPixels: 11520,
          ratio: 0.0125,
        },
        { testId: uuid(901), testName: 'Cart', stepId: 's2', status: 'new', diffPixels: 0, ratio: 0 },
      ];
    const markdown = resultsMarkdown(mergeRuns([detail], { baseUrl: base, projectId, timedOut: false }));
    const review = `${base}/console/projects/${projectId}/runs/${uuid(10)}/visual`;
    expect(markdown).toContain(
      `🖼️ **2** visual changes await review (1 changed, 1 new) · [review run ${uuid(10).slice(0, 8)}](${review})`,
    );
    expect(markdown).toContain(
      '- Home: changed: 1.25 % of pixels differ\n- Cart: new screenshot, no baseline yet',
    );
    const links = (marked.lexer(markdown) as Tokens.Generic[])
      .flatMap((token) => (token.tokens ?? []) as Tokens.Generic[])
      .filter((token) => token.type === 'link')
      .map((token) => token.href);
    expect(links).toContain(review);
  });

  it('shows each change’s picture as a thumbnail linking to its review page, and none without a URL', () => {
    const detail = runDetail(uuid(11), 'failed', [
      { name: 'Home "hero" <main> & \'nav\'', status: 'failed', errorMessage: 'Screenshot differs' },
      { name: 'Cart', status: 'passed' },
    ]).data;
    const imageUrl = `${base}/blobs/runs/${uuid(11)}/tests/Home/visual-s1-diff.png?expires=1&signature=ab"c`;
    if (detail.report)
      detail.report.visualChanges = [
        {
          testId: uuid(900),
          testName: 'Home "hero" <main> & \'nav\'',
          stepId: 's1',
          status: 'changed',
          diffPixels: 11520,
          ratio: 0.0125,
          imageUrl,
        },
        { testId: uuid(901), testName: 'Cart', stepId: 's2', status: 'new', diffPixels: 0, ratio: 0 },
      ];
    const markdown = resultsMarkdown(mergeRuns([detail], { baseUrl: base, projectId, timedOut: false }));
    const review = `${base}/console/projects/${projectId}/runs/${uuid(11)}/visual`;
    const src = imageUrl.replaceAll('&', '&amp;').replace('"', '&quot;');
    expect(markdown).toContain(
      '- Home "hero" \\<main\\> &amp; \'nav\': changed: 1.25 % of pixels differ\n' +
        `  <br><a href="${review}"><img src="${src}" width="320" ` +
        'alt="Home &quot;hero&quot; &lt;main&gt; &amp; &#39;nav&#39;: diff"></a>\n' +
        '- Cart: new screenshot, no baseline yet\n',
    );
    expect(markdown.match(/<img /g)).toHaveLength(1);
    // Rendered, the thumbnail is an image inside a link to the review page, under its item.
    const html = marked.parse(markdown, { gfm: true, async: false });
    expect(html).toContain(`<a href="${review}"><img src="${src}" width="320"`);
    const item = html.split('<li>')[1] ?? '';
    expect(item).toContain('<img ');
  });

  it('keeps the thumbnails within a share of the comment’s size budget', () => {
    const detail = runDetail(uuid(12), 'completed', [{ name: 'Home', status: 'passed' }]).data;
    const longUrl = (n: number) =>
      `https://bucket.example/visual-${n}.png?X-Amz-Signature=${'f'.repeat(3000)}`;
    if (detail.report)
      detail.report.visualChanges = Array.from({ length: 10 }, (_, n) => ({
        testId: uuid(900),
        testName: `Page ${n}`,
        stepId: `s${n}`,
        status: 'new' as const,
        diffPixels: 0,
        ratio: 0,
        imageUrl: longUrl(n),
      }));
    const results = mergeRuns([detail], { baseUrl: base, projectId, timedOut: false });
    const comment = resultsMarkdown(results, { maxChars: commentMaxChars });
    expect(comment.length).toBeLessThan(commentMaxChars);
    const shown = comment.match(/<img /g)?.length ?? 0;
    // A quarter of 65 000 characters holds five of these 3 100-character thumbnails.
    expect(shown).toBe(5);
    expect(comment).toContain(
      "…5 more thumbnails left out to stay within GitHub's size limit: see the review page.",
    );
    expect(resultsMarkdown(results, { maxChars: summaryMaxChars }).match(/<img /g)).toHaveLength(10);
  });

  it('says nothing when every screenshot matched its baseline', () => {
    const markdown = resultsMarkdown(results([{ name: 'Home', status: 'passed' }]));
    expect(markdown).not.toContain('visual');
  });
});
