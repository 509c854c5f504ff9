import { Secret } from 'otpauth';
import { describe, expect, it } from 'vitest';
import { describeViolations } from '../../src/runner/compiler/runtime/stepdeck-accessibility.ts';
import { matchesUrlPattern, urlPattern } from '../../src/runner/compiler/runtime/stepdeck-network.ts';
import { totpCode } from '../../src/runner/compiler/runtime/stepdeck-totp.ts';
import { compileProject } from '../../src/runner/index.ts';
import { step, uiTest } from './fixtures.ts';

/** The runtime's pure parts: RFC 6238 codes at a given time, URL patterns, the violation text. */

describe('totp codes (RFC 6238 appendix B vectors)', () => {
  // The RFC's seeds: ASCII "1234567890" repeated to 20, 32 and 64 bytes.
  const seed = (bytes: number) => Secret.fromLatin1('1234567890'.repeat(7).slice(0, bytes)).base32;
  const keys = { SHA1: seed(20), SHA256: seed(32), SHA512: seed(64) } as const;
  const vectors: Array<[number, string, string, string]> = [
    [59, '94287082', '46119246', '90693936'],
    [1111111109, '07081804', '68084774', '25091201'],
    [1111111111, '14050471', '67062674', '99943326'],
    [1234567890, '89005924', '91819424', '93441116'],
    [2000000000, '69279037', '90698825', '38618901'],
    [20000000000, '65353130', '77737706', '47863826'],
  ];

  it('gives the published codes for a base32 key at each time', () => {
    for (const [seconds, sha1, sha256, sha512] of vectors) {
      const at = seconds * 1000;
      expect(totpCode(keys.SHA1, { digits: 8 }, at), `SHA1 at ${seconds}`).toBe(sha1);
      expect(totpCode(keys.SHA256, { digits: 8, algorithm: 'SHA256' }, at), `SHA256 at ${seconds}`).toBe(
        sha256,
      );
      expect(totpCode(keys.SHA512, { digits: 8, algorithm: 'SHA512' }, at), `SHA512 at ${seconds}`).toBe(
        sha512,
      );
    }
  });

  it('reads digits, period and algorithm from an otpauth:// URI', () => {
    const uri = `otpauth://totp/Test:rfc?secret=${keys.SHA512}&algorithm=SHA512&digits=8&period=30`;
    expect(totpCode(uri, {}, 1111111111 * 1000)).toBe('99943326');
    // The default 6 digits are the 8-digit code's last six.
    expect(totpCode(` ${keys.SHA1.toLowerCase()} `, {}, 59 * 1000)).toBe('287082');
  });

  it('refuses what is not a TOTP key, without repeating it', () => {
    expect(() => totpCode('not a key!', {})).toThrow(
      'totp: the secret is neither an otpauth://totp/ URI nor a base32 key',
    );
    expect(() => totpCode(`otpauth://hotp/x?secret=${keys.SHA1}&counter=1`, {})).toThrow(
      'totp: the secret is an otpauth://hotp/ URI; only time-based (totp) codes are supported',
    );
    expect(() => totpCode('otpauth://totp/x?issuer=a', {})).toThrow(
      'totp: the secret is not a valid otpauth:// URI',
    );
    expect(() =>
      totpCode(`otpauth://totp/x?secret=${keys.SHA1}`, { period: 60, algorithm: 'SHA256' }),
    ).toThrow(
      'totp: period, algorithm come from the otpauth:// URI in the secret; leave them out of the step',
    );
  });
});

describe('URL patterns as page.route reads them', () => {
  const base = 'http://127.0.0.1:3000/app/';
  it('resolves relative globs against baseURL and matches Playwright globs', () => {
    expect(matchesUrlPattern('http://127.0.0.1:3000/api/items', '/api/items', base)).toBe(true);
    expect(matchesUrlPattern('http://127.0.0.1:3000/app/api/items', 'api/items', base)).toBe(true);
    expect(matchesUrlPattern('http://127.0.0.1:3000/api/items?page=2', '/api/items', base)).toBe(false);
    expect(matchesUrlPattern('http://127.0.0.1:3000/api/items?page=2', '**/api/items*', base)).toBe(true);
    expect(matchesUrlPattern('http://127.0.0.1:3000/api/items', '**/api/items', undefined)).toBe(true);
    expect(matchesUrlPattern('http://x.test/a/b/c.png', '**/*.{png,jpg}', undefined)).toBe(true);
    expect(matchesUrlPattern('http://x.test/a/b/c.gif', '**/*.{png,jpg}', undefined)).toBe(false);
    expect(matchesUrlPattern('http://x.test/api/v1/items', 'http://x.test/api/*/items', undefined)).toBe(
      true,
    );
    expect(matchesUrlPattern('http://x.test/api/v1/v2/items', 'http://x.test/api/*/items', undefined)).toBe(
      false,
    );
  });

  it('reads /…/flags as a regular expression matched anywhere in the URL', () => {
    expect(urlPattern('/items\\?page=\\d$/i')).toEqual(/items\?page=\d$/i);
    expect(matchesUrlPattern('http://x.test/ITEMS?page=2', '/items\\?page=\\d$/i', undefined)).toBe(true);
    expect(() => urlPattern('/(/')).toThrow(/^url \/\(\/ is not a valid regular expression/);
  });
});

describe('accessibility violations in words', () => {
  it('counts elements, names each rule with its impact and targets, and caps the list', () => {
    expect(describeViolations([])).toBeNull();
    expect(
      describeViolations([
        { id: 'color-contrast', impact: 'serious', targets: ['#a', '.b'] },
        { id: 'label', impact: 'critical', targets: ['input[name=q]'] },
      ]),
    ).toBe(
      '3 accessibility violations (serious or worse): color-contrast (serious) at #a, .b; label (critical) at input[name=q]',
    );
    expect(describeViolations([{ id: 'label', impact: 'critical', targets: ['#q'] }], 'critical')).toBe(
      '1 accessibility violation (critical): label (critical) at #q',
    );
    const many = Array.from({ length: 12 }, (_, index) => ({
      id: `rule-${index}`,
      impact: 'minor' as const,
      targets: Array.from({ length: 7 }, (_, n) => `#e${n}`),
    }));
    const text = describeViolations(many, 'minor') ?? '';
    expect(
      text.startsWith(
        '84 accessibility violations (minor or worse): rule-0 (minor) at #e0, #e1, #e2, #e3, #e4 and 2 more;',
      ),
    ).toBe(true);
    expect(text.endsWith('rule-9 (minor) at #e0, #e1, #e2, #e3, #e4 and 2 more; and 2 more rules')).toBe(
      true,
    );
  });
});

describe('what a project gets for these steps', () => {
  const project = (steps: Parameters<typeof uiTest>[2]) =>
    compileProject({
      tests: [uiTest('d0000000-0000-4000-8000-000000000001', 'T', steps)],
      config: null,
      secretNames: ['K'],
    });
  const spec = (compiled: ReturnType<typeof compileProject>) =>
    String([...compiled.specFiles.values()].map((file) => compiled.files.get(file))[0]);
  const dependencies = (compiled: ReturnType<typeof compileProject>) =>
    Object.keys(JSON.parse(String(compiled.files.get('package.json'))).devDependencies).sort();

  it('only the runtime files, imports and packages of the steps used', () => {
    const plain = project([step('Open', { name: 'goto', url: '/' })]);
    expect(dependencies(plain)).toEqual(['@playwright/test']);
    for (const file of ['stepdeck-network.ts', 'stepdeck-totp.ts', 'stepdeck-accessibility.ts'])
      expect(plain.files.has(file), file).toBe(false);
    expect(spec(plain)).not.toContain('recordResponses');

    const mocked = project([step('Mock', { name: 'mockRoute', url: '/api', abort: true })]);
    expect(dependencies(mocked)).toEqual(['@playwright/test']);
    expect(mocked.files.has('stepdeck-network.ts')).toBe(true);
    expect(spec(mocked)).not.toContain('const responses = recordResponses(page);');

    const all = project([
      step('Wait', { name: 'waitForResponse', url: '/api' }),
      step('Code', { name: 'totp', secret: '{{secrets.K}}', variable: 'code' }),
      step('A11y', { name: 'assertAccessible' }),
    ]);
    expect(dependencies(all)).toEqual(['@playwright/test', 'axe-core', 'otpauth']);
    expect(spec(all)).toContain('const responses = recordResponses(page);');
    expect(spec(all)).toContain(`import { totpCode } from '../stepdeck-totp.ts';`);
    expect(spec(all)).toContain(`sd.setVar("code", totpCode(sd.t("{{secrets.K}}"), {}));`);
    expect(all.outlines?.get('d0000000-0000-4000-8000-000000000001')?.map((entry) => entry.action)).toEqual([
      'waitForResponse /api',
      'totp → vars.code',
      'assertAccessible page',
    ]);
  });
});
