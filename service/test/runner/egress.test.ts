import { describe, expect, it } from 'vitest';
import {
  EgressPolicy,
  type EgressPolicyOptions,
  parseEgressRule,
  parseEgressRules,
} from '../../src/runner/egress.ts';

/**
 * The runner's egress rules: how `RUNNER_EGRESS_DENY` / `RUNNER_EGRESS_ALLOW` entries
 * parse, and which targets a run may reach (the defaults, then the install's rules).
 */
describe('egress rules', () => {
  it('parses addresses, CIDR ranges and host names, each optionally with a port', () => {
    const parse = (entry: string) => parseEgressRule(entry, 'RUNNER_EGRESS_DENY');
    expect(parse('10.0.0.0/8')).toEqual({ text: '10.0.0.0/8', cidr: '10.0.0.0/8' });
    // The network of the range, as it matches.
    expect(parse('10.1.2.3/8')).toEqual({ text: '10.0.0.0/8', cidr: '10.0.0.0/8' });
    expect(parse('192.0.2.7')).toEqual({ text: '192.0.2.7', cidr: '192.0.2.7/32' });
    expect(parse('192.0.2.7:8080')).toEqual({ text: '192.0.2.7:8080', cidr: '192.0.2.7/32', port: 8080 });
    expect(parse('10.0.0.0/8:5432')).toEqual({ text: '10.0.0.0/8:5432', cidr: '10.0.0.0/8', port: 5432 });
    expect(parse('fd00::/8')).toEqual({ text: 'fd00::/8', cidr: 'fd00::/8' });
    expect(parse('::1')).toEqual({ text: '::1', cidr: '::1/128' });
    expect(parse('[fd00::/8]:5432')).toEqual({ text: '[fd00::/8]:5432', cidr: 'fd00::/8', port: 5432 });
    expect(parse('[::1]:8080')).toEqual({ text: '[::1]:8080', cidr: '::1/128', port: 8080 });
    expect(parse('Staging.Example.com')).toEqual({
      text: 'staging.example.com',
      host: 'staging.example.com',
    });
    expect(parse('*.example.com:8443')).toEqual({
      text: '*.example.com:8443',
      host: '*.example.com',
      port: 8443,
    });
    expect(parse('metadata.google.internal.')).toEqual({
      text: 'metadata.google.internal',
      host: 'metadata.google.internal',
    });
    expect(parseEgressRules(' 10.0.0.0/8, ,db.internal:5432 ', 'RUNNER_EGRESS_ALLOW')).toEqual([
      { text: '10.0.0.0/8', cidr: '10.0.0.0/8' },
      { text: 'db.internal:5432', host: 'db.internal', port: 5432 },
    ]);
    expect(parseEgressRules(undefined, 'RUNNER_EGRESS_ALLOW')).toEqual([]);
  });

  it('refuses what is none of these, naming the setting and the entry', () => {
    const refused: Array<[string, string]> = [
      ['not a host', '"not a host" is not an IP address, a CIDR range or a host name'],
      ['10.0.0.0/33', '"10.0.0.0/33" is not an IP address'],
      ['fd00::/129', '"fd00::/129" is not an IP address'],
      ['0x7f.1', '"0x7f.1" is not an IP address'],
      ['2130706433', '"2130706433" is not an IP address'],
      ['999.1.1.1', '"999.1.1.1" is not an IP address'],
      ['http://example.com/', '"http://example.com/" is not an IP address'],
      ['example.com:0', 'the port of "example.com:0" must be between 1 and 65535'],
      ['example.com:65536', 'the port of "example.com:65536" must be between 1 and 65535'],
      ['[::1]:x', 'the port of "[::1]:x" must be between 1 and 65535'],
    ];
    for (const [entry, message] of refused) {
      expect(() => parseEgressRule(entry, 'RUNNER_EGRESS_ALLOW'), entry).toThrow(message);
      expect(() => parseEgressRule(entry, 'RUNNER_EGRESS_ALLOW'), entry).toThrow(/^RUNNER_EGRESS_ALLOW: /);
    }
  });

  const policy = (options: Partial<EgressPolicyOptions> = {}) =>
    new EgressPolicy({
      deny: [],
      allow: [],
      ownPorts: () => [
        { port: 8080, name: 'HTTP' },
        { port: 2525, name: 'SMTP' },
      ],
      hostAddresses: () => ['192.0.2.2', 'fd00::2'],
      ...options,
    });
  const check = (p: EgressPolicy, host: string, port: number, addresses = [host]) =>
    p.check({ host, port, addresses });
  const reason = (verdict: ReturnType<EgressPolicy['check']>) =>
    verdict.allowed ? 'allowed' : verdict.reason;

  it('denies the service’s own ports on every address of this host, and metadata addresses, by default', () => {
    const p = policy();
    for (const address of [
      '127.0.0.1',
      '127.1.2.3',
      '::1',
      '0.0.0.0',
      '::',
      '192.0.2.2',
      'fd00::2',
      '::ffff:127.0.0.1',
    ])
      expect(reason(check(p, address, 8080)), address).toMatch(
        /^blocked by the runner's egress rules: .* port 8080 is the Stepdeck service's own HTTP port on this host \(denied by default; RUNNER_EGRESS_ALLOW can permit it\)$/,
      );
    expect(reason(check(p, '127.0.0.1', 2525))).toBe(
      "blocked by the runner's egress rules: 127.0.0.1 port 2525 is the Stepdeck service's own SMTP port on this host (denied by default; RUNNER_EGRESS_ALLOW can permit it)",
    );
    expect(reason(check(p, 'localhost', 8080, ['127.0.0.1']))).toContain(
      'localhost (127.0.0.1) port 8080 is the Stepdeck',
    );
    expect(reason(check(p, '169.254.169.254', 80))).toBe(
      "blocked by the runner's egress rules: 169.254.169.254 is in 169.254.0.0/16 (link-local and cloud metadata, denied by default; RUNNER_EGRESS_ALLOW can permit it)",
    );
    expect(reason(check(p, 'fd00:ec2::254', 80))).toContain('fd00:ec2::254 is in fd00:ec2::254/128');
    expect(reason(check(p, 'fe80::1', 80))).toContain('fe80::1 is in fe80::/10');
    expect(reason(check(p, '::ffff:169.254.169.254', 80))).toContain('169.254.169.254 is in 169.254.0.0/16');
    expect(reason(check(p, 'metadata.internal', 80, ['10.0.0.1', '169.254.169.254']))).toContain(
      'metadata.internal (169.254.169.254) is in 169.254.0.0/16',
    );

    // Loopback, this host's other ports and private ranges stay reachable.
    for (const [address, port] of [
      ['127.0.0.1', 3000],
      ['::1', 8081],
      ['192.0.2.2', 5173],
      ['10.1.2.3', 8080],
      ['172.16.0.9', 2525],
      ['192.168.1.1', 80],
      ['fd00::9', 8080],
      ['93.184.215.14', 443],
    ] as const)
      expect(check(p, address, port), `${address}:${port}`).toEqual({ allowed: true });
  });

  it('applies the install’s deny rules by address, range, name and port', () => {
    const p = policy({
      deny: parseEgressRules(
        '10.0.0.0/8, 192.168.1.5:5432, [fd00::/8]:6379, *.corp.example, db.example.com',
        'RUNNER_EGRESS_DENY',
      ),
    });
    expect(reason(check(p, '10.9.8.7', 443))).toBe(
      "blocked by the runner's egress rules: 10.9.8.7 is in 10.0.0.0/8 (RUNNER_EGRESS_DENY)",
    );
    expect(reason(check(p, 'staging.internal', 443, ['10.9.8.7']))).toContain(
      'staging.internal (10.9.8.7) is in 10.0.0.0/8 (RUNNER_EGRESS_DENY)',
    );
    expect(reason(check(p, '192.168.1.5', 5432))).toContain('192.168.1.5 port 5432 matches 192.168.1.5:5432');
    expect(check(p, '192.168.1.5', 80)).toEqual({ allowed: true });
    expect(reason(check(p, 'fd00::1', 6379))).toContain('fd00::1 port 6379 is in [fd00::/8]:6379');
    expect(check(p, 'fd00::1', 6380)).toEqual({ allowed: true });
    expect(reason(check(p, 'wiki.corp.example', 443, ['203.0.113.9']))).toContain(
      'wiki.corp.example (203.0.113.9) matches *.corp.example (RUNNER_EGRESS_DENY)',
    );
    // `*.` is for subdomains, not the name itself; a name rule is about names, not numbers.
    expect(check(p, 'corp.example', 443, ['203.0.113.9'])).toEqual({ allowed: true });
    expect(reason(check(p, 'DB.Example.com.', 443, ['203.0.113.10']))).toContain('matches db.example.com');
    expect(check(p, '203.0.113.10', 443)).toEqual({ allowed: true });
    // A name is denied when any of its addresses is.
    expect(reason(check(p, 'mixed.example', 443, ['203.0.113.9', '10.0.0.1']))).toContain(
      '(10.0.0.1) is in 10.0.0.0/8',
    );
  });

  it('lets an allow rule win over the defaults and the deny rules, for its target only', () => {
    const p = policy({
      deny: parseEgressRules('10.0.0.0/8', 'RUNNER_EGRESS_DENY'),
      allow: parseEgressRules(
        '10.1.2.3, 127.0.0.1:2525, metadata.google.internal, [::1]:8080',
        'RUNNER_EGRESS_ALLOW',
      ),
    });
    expect(check(p, '10.1.2.3', 443)).toEqual({ allowed: true });
    expect(reason(check(p, '10.1.2.4', 443))).toContain('10.1.2.4 is in 10.0.0.0/8');
    expect(check(p, '127.0.0.1', 2525)).toEqual({ allowed: true });
    expect(reason(check(p, '127.0.0.1', 8080))).toContain('own HTTP port');
    expect(check(p, '::1', 8080)).toEqual({ allowed: true });
    expect(check(p, 'metadata.google.internal', 80, ['169.254.169.254'])).toEqual({ allowed: true });
    expect(reason(check(p, '169.254.169.254', 80))).toContain('169.254.0.0/16');
    // Everything allowed: the rules switched off.
    const off = policy({ allow: parseEgressRules('0.0.0.0/0,::/0', 'RUNNER_EGRESS_ALLOW') });
    for (const [address, port] of [
      ['127.0.0.1', 8080],
      ['::1', 2525],
      ['169.254.169.254', 80],
      ['fe80::1', 80],
    ] as const)
      expect(check(off, address, port)).toEqual({ allowed: true });
  });

  it('reads the service’s ports at each check (listeners bound after the proxy started)', () => {
    const ports: Array<{ port: number; name: string }> = [];
    const p = policy({ ownPorts: () => ports });
    expect(check(p, '127.0.0.1', 41234)).toEqual({ allowed: true });
    ports.push({ port: 41234, name: 'HTTP' });
    expect(reason(check(p, '127.0.0.1', 41234))).toContain('own HTTP port');
  });
});
