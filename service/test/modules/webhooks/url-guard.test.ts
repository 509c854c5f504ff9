import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import {
  checkTargetUrl,
  isRefusedAddress,
  type Resolver,
  UrlRuleError,
} from '../../../src/modules/webhooks/url-guard.ts';

const dnsTable: Record<string, string[]> = {
  'hooks.example.com': ['93.184.216.34'],
  'v6.example.com': ['2606:2800:220:1:248:1893:25c8:1946'],
  'internal.example.com': ['10.0.0.7'],
  'public-then-private.example.com': ['93.184.216.34', '192.168.1.20'],
  'mapped.example.com': ['::ffff:10.0.0.1'],
  'cgnat.example.com': ['100.64.3.4'],
  'loopback6.example.com': ['::1'],
  'empty.example.com': [],
};

const resolve: Resolver = async (hostname) => {
  const found = dnsTable[hostname];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }) as const);
};

const check = (url: string, allowedTargets: string[] = []) =>
  checkTargetUrl(url, { resolve, allowedTargets });

async function refusal(url: string, allowedTargets: string[] = []): Promise<string> {
  try {
    await check(url, allowedTargets);
  } catch (error) {
    expect(error).toBeInstanceOf(UrlRuleError);
    return (error as Error).message;
  }
  throw new Error(`${url} was accepted`);
}

describe('webhook endpoint URL rules', () => {
  it('accepts https URLs whose every address is public, keeping the checked addresses', async () => {
    const target = await check('https://hooks.example.com/stepdeck?x=1');
    expect(target.addresses).toEqual([{ address: '93.184.216.34', family: 4 }]);
    expect((await check('https://v6.example.com/')).addresses[0]?.family).toBe(6);
    expect((await check('https://93.184.216.34:8443/')).addresses).toEqual([
      { address: '93.184.216.34', family: 4 },
    ]);
  });

  it('refuses other schemes, credentials, localhost and non-URLs', async () => {
    expect(await refusal('http://hooks.example.com/')).toBe('url must use https://');
    expect(await refusal('ftp://hooks.example.com/')).toBe('url must use https://');
    expect(await refusal('not a url')).toMatch(/absolute https/);
    expect(await refusal('https://user:pass@hooks.example.com/')).toBe('url must not contain credentials');
    expect(await refusal('https://user@hooks.example.com/')).toBe('url must not contain credentials');
    expect(await refusal('https://localhost/')).toBe('url must not point to localhost');
    expect(await refusal('https://LOCALHOST./')).toBe('url must not point to localhost');
    expect(await refusal('https://api.localhost/')).toBe('url must not point to localhost');
  });

  it.each([
    '10.0.0.1',
    '10.255.255.255',
    '172.16.0.1',
    '172.31.255.254',
    '192.168.0.10',
    '127.0.0.1',
    '127.8.9.10',
    '169.254.169.254',
    '100.64.0.1',
    '100.127.255.254',
    '0.0.0.0',
    '[::1]',
    '[fc00::1]',
    '[fd12:3456::1]',
    '[fe80::1]',
    '[::ffff:127.0.0.1]',
    '[::ffff:10.0.0.1]',
    '[::ffff:169.254.169.254]',
    '[::ffff:93.184.216.34]',
    '[::]',
  ])('refuses the literal address %s', async (host) => {
    expect(await refusal(`https://${host}/hook`)).toMatch(
      /private, loopback, link-local or carrier-grade NAT/,
    );
  });

  it('refuses IPv4 spellings that normalise to a private address', async () => {
    expect(await refusal('https://0x7f.1/')).toContain('127.0.0.1');
    expect(await refusal('https://2130706433/')).toContain('127.0.0.1');
  });

  it('accepts the neighbours of the private ranges', async () => {
    for (const address of ['172.15.255.255', '172.32.0.1', '100.63.255.255', '100.128.0.1', '11.0.0.1']) {
      expect(isRefusedAddress(address)).toBe(false);
    }
  });

  it('resolves names and refuses any private answer or no answer', async () => {
    expect(await refusal('https://internal.example.com/')).toBe(
      'url host internal.example.com resolves to a private, loopback, link-local or carrier-grade NAT address (10.0.0.7)',
    );
    expect(await refusal('https://public-then-private.example.com/')).toContain('(192.168.1.20)');
    expect(await refusal('https://mapped.example.com/')).toContain('::ffff:10.0.0.1');
    expect(await refusal('https://cgnat.example.com/')).toContain('100.64.3.4');
    expect(await refusal('https://loopback6.example.com/')).toContain('::1');
    expect(await refusal('https://nowhere.example.com/')).toBe(
      'url host nowhere.example.com does not resolve',
    );
    expect(await refusal('https://empty.example.com/')).toBe('url host empty.example.com does not resolve');
  });

  it('exempts WEBHOOK_ALLOWED_TARGETS from the address rule only', async () => {
    const allowed = loadConfig({ WEBHOOK_ALLOWED_TARGETS: '127.0.0.1, 10.0.0.0/8' }).webhookAllowedTargets;
    expect(allowed).toEqual(['127.0.0.1/32', '10.0.0.0/8']);
    expect((await check('https://127.0.0.1:9443/', allowed)).addresses[0]?.address).toBe('127.0.0.1');
    expect((await check('https://internal.example.com/', allowed)).hostname).toBe('internal.example.com');
    expect((await check('https://[::ffff:127.0.0.1]/', allowed)).hostname).toBe('::ffff:7f00:1');
    // Every other rule still applies.
    expect(await refusal('http://127.0.0.1/', allowed)).toBe('url must use https://');
    expect(await refusal('https://localhost/', allowed)).toBe('url must not point to localhost');
    expect(await refusal('https://127.0.0.2/', allowed)).toContain('127.0.0.2');
    expect(await refusal('https://public-then-private.example.com/', allowed)).toContain('192.168.1.20');
  });

  it('validates WEBHOOK_ALLOWED_TARGETS at start and refuses it in production', () => {
    expect(loadConfig({}).webhookAllowedTargets).toEqual([]);
    expect(() => loadConfig({ WEBHOOK_ALLOWED_TARGETS: 'not-an-ip' })).toThrow(/WEBHOOK_ALLOWED_TARGETS/);
    expect(() => loadConfig({ WEBHOOK_ALLOWED_TARGETS: '127.0.0.1', NODE_ENV: 'production' })).toThrow(
      /must be empty when NODE_ENV=production/,
    );
    expect(loadConfig({ NODE_ENV: 'production' }).webhookAllowedTargets).toEqual([]);
  });
});
