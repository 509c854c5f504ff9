/**
 * The runner's egress rules: which addresses a run (its browser's navigations, sub-resources
 * and WebSockets, its `request` steps) may reach. The egress proxy (egress-proxy.ts) checks
 * every connection against them after resolving the host name, and connects to the address it
 * checked.
 *
 * Precedence, first match wins:
 * 1. `RUNNER_EGRESS_ALLOW`: an allow rule permits its targets, whatever denies them below.
 * 2. The defaults: the service's own listeners (its HTTP and SMTP ports, and the proxy's, on
 *    any address of this host: loopback, the interfaces' addresses, 0.0.0.0 and ::), then
 *    link-local and cloud-metadata addresses (169.254.0.0/16, fe80::/10, fd00:ec2::254).
 * 3. `RUNNER_EGRESS_DENY`: the install's deny rules.
 * 4. Everything else is allowed: private ranges and loopback (internal staging apps, the
 *    test sites of a self-hosted runner) stay reachable.
 *
 * A rule is a CIDR range or an address (`10.0.0.0/8`, `fd00::/8`, `192.0.2.7`), or a host name
 * (`staging.example.com`, or `*.example.com` for its subdomains), each optionally for one port
 * (`10.1.2.3:5432`, `[fd00::/8]:5432`, `*.example.com:8443`). An address rule matches every
 * address the host name resolves to; a host-name rule matches the name the run asked for (so
 * a deny by name is no barrier to the same address by number: deny addresses with CIDRs). A
 * name is denied when any of its addresses is.
 */
import os from 'node:os';
import ipaddr from 'ipaddr.js';

/** Where rules come from, as messages name it: the environment, or the install's settings. */
export type EgressSetting =
  | 'RUNNER_EGRESS_DENY'
  | 'RUNNER_EGRESS_ALLOW'
  | 'install settings runnerEgress.deny'
  | 'install settings runnerEgress.allow';

/** One rule of `RUNNER_EGRESS_DENY` or `RUNNER_EGRESS_ALLOW`, as parsed (plain data). */
export interface EgressRule {
  /** How the rule is shown in messages: `10.0.0.0/8`, `[fd00::/8]:5432`, `*.example.com`. */
  text: string;
  /** A CIDR range in normal form (`10.0.0.0/8`, `fd00::/8`); absent for host-name rules. */
  cidr?: string;
  /** A host name, lower case: `example.com`, or `*.example.com` for any subdomain of it. */
  host?: string;
  /** The one port the rule is for; every port when absent. */
  port?: number;
  /** Where the rule comes from, as a refusal names it; absent: the environment variable. */
  source?: string;
}

export interface EgressRules {
  deny: EgressRule[];
  allow: EgressRule[];
}

/** A listener of the service this process knows of: runs may not reach it. */
export interface OwnPort {
  port: number;
  /** What it is, as messages say it: `HTTP`, `SMTP`, `egress proxy`. */
  name: string;
}

/** Link-local and cloud-metadata addresses: denied unless an allow rule permits them. */
export const metadataRanges = ['169.254.0.0/16', 'fe80::/10', 'fd00:ec2::254/128'];
/** Addresses that are this host whatever its interfaces: loopback, 0.0.0.0 and ::. */
const localRanges = ['127.0.0.0/8', '::1/128', '0.0.0.0/8', '::/128'];

const HOST_NAME = /^(\*\.)?([a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*\.?$/;

/** An IPv4 or IPv6 address in dotted or colon form only (no `0x7f.1` and other legacy forms). */
function isPlainAddress(text: string): boolean {
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(text)) return ipaddr.IPv4.isValidFourPartDecimal(text);
  return text.includes(':') && ipaddr.IPv6.isValid(text);
}

function parsePort(text: string, entry: string, setting: EgressSetting): number {
  const port = Number(text);
  if (!/^\d{1,5}$/.test(text) || port < 1 || port > 65535)
    throw new Error(`${setting}: the port of "${entry}" must be between 1 and 65535`);
  return port;
}

/** `10.0.0.0/8` or `192.0.2.7` (a /32) in normal form; undefined when not an address or range. */
function normalCidr(text: string): string | undefined {
  const [address, bits, extra] = text.split('/');
  if (address === undefined || extra !== undefined || !isPlainAddress(address)) return undefined;
  const parsed = ipaddr.parse(address);
  const max = parsed.kind() === 'ipv4' ? 32 : 128;
  if (bits === undefined) return `${parsed.toString()}/${max}`;
  if (!/^\d{1,3}$/.test(bits) || Number(bits) > max) return undefined;
  const [network, prefix] = ipaddr.parseCIDR(`${address}/${bits}`);
  // The network itself (10.1.2.3/8 is 10.0.0.0/8), as the rule then matches.
  const first =
    network.kind() === 'ipv4'
      ? ipaddr.IPv4.networkAddressFromCIDR(`${address}/${bits}`)
      : ipaddr.IPv6.networkAddressFromCIDR(`${address}/${bits}`);
  return `${first.toString()}/${prefix}`;
}

function showCidr(cidr: string): string {
  const [address, bits] = cidr.split('/');
  const single = (address?.includes(':') && bits === '128') || (!address?.includes(':') && bits === '32');
  return single ? (address as string) : cidr;
}

/** One entry of a rule list; throws an Error whose message names the setting and the entry. */
export function parseEgressRule(entry: string, setting: EgressSetting): EgressRule {
  const text = entry.trim();
  const invalid = () =>
    new Error(
      `${setting}: "${text}" is not an IP address, a CIDR range or a host name (each optionally with :port)`,
    );
  if (text.includes('://')) throw invalid();
  let host = text;
  let port: number | undefined;
  const bracketed = /^\[([^\]]+)\](?::(.*))?$/.exec(text);
  if (bracketed) {
    host = bracketed[1] as string;
    if (bracketed[2] !== undefined) port = parsePort(bracketed[2], text, setting);
  } else if ((text.match(/:/g) ?? []).length === 1) {
    // One colon: `host:port` (an IPv6 address has at least two).
    const at = text.lastIndexOf(':');
    host = text.slice(0, at);
    port = parsePort(text.slice(at + 1), text, setting);
  }
  const suffix = port === undefined ? '' : `:${port}`;
  const cidr = normalCidr(host);
  if (cidr) {
    const shown = showCidr(cidr);
    const inBrackets = shown.includes(':') && port !== undefined ? `[${shown}]` : shown;
    return { text: `${inBrackets}${suffix}`, cidr, ...(port === undefined ? {} : { port }) };
  }
  const name = host.toLowerCase();
  const normal = name.replace(/\.$/, '');
  // A last label of digits or 0x… makes an IPv4 address in a URL (`2130706433`, `0x7f.1`).
  const numeric = /^(0x[0-9a-f]*|\d+)$/.test(normal.split('.').at(-1) ?? '');
  if (!HOST_NAME.test(name) || numeric) throw invalid();
  return { text: `${normal}${suffix}`, host: normal, ...(port === undefined ? {} : { port }) };
}

/** A comma-separated list (`RUNNER_EGRESS_DENY`, `RUNNER_EGRESS_ALLOW`); empty entries are skipped. */
export function parseEgressRules(raw: string | undefined, setting: EgressSetting): EgressRule[] {
  if (!raw) return [];
  return raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => parseEgressRule(entry, setting));
}

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Range = [Address, number];

/** An address as the checks see it: IPv4-mapped IPv6 (`::ffff:127.0.0.1`) is the IPv4 address. */
function parseAddress(text: string): Address | undefined {
  try {
    return ipaddr.process(text.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  } catch {
    return undefined;
  }
}

function inRange(address: Address, range: Range): boolean {
  return address.kind() === range[0].kind() && address.match(range);
}

function toRange(cidr: string): Range {
  const [address, bits] = ipaddr.parseCIDR(cidr);
  return [address, bits];
}

function hostMatches(pattern: string, host: string): boolean {
  if (pattern.startsWith('*.')) return host.endsWith(pattern.slice(1));
  return host === pattern;
}

interface CompiledRule extends EgressRule {
  range?: Range;
}

function compile(rule: EgressRule): CompiledRule {
  return rule.cidr ? { ...rule, range: toRange(rule.cidr) } : rule;
}

/** What a connection is checked as: the name asked for, its port and the addresses it resolved to. */
export interface EgressTarget {
  host: string;
  port: number;
  addresses: string[];
}

export type EgressVerdict = { allowed: true } | { allowed: false; reason: string };

/** The text every refusal starts with (the runtime and the tests look for it). */
export const egressRefusal = "blocked by the runner's egress rules";

export interface EgressPolicyOptions extends EgressRules {
  /** The service's listeners (PORT, SMTP_PORT, the ports bound, the egress proxy's). */
  ownPorts: () => OwnPort[];
  /** This host's addresses besides loopback, 0.0.0.0 and :: (default: the interfaces'). */
  hostAddresses?: () => string[];
}

/** How long the interfaces' addresses are reused before they are read again. */
const interfacesTtlMs = 5_000;

/** Decides, for a target and each address it resolved to, whether a run may connect. */
export class EgressPolicy {
  private readonly deny: CompiledRule[];
  private readonly allow: CompiledRule[];
  private readonly metadata = metadataRanges.map(toRange);
  private readonly local = localRanges.map(toRange);
  private readonly ownPorts: () => OwnPort[];
  private readonly hostAddresses: () => string[];
  private interfaces: { at: number; addresses: Address[] } | undefined;

  constructor(options: EgressPolicyOptions) {
    this.deny = options.deny.map(compile);
    this.allow = options.allow.map(compile);
    this.ownPorts = options.ownPorts;
    this.hostAddresses = options.hostAddresses ?? interfaceAddresses;
  }

  check(target: EgressTarget): EgressVerdict {
    const host = target.host
      .toLowerCase()
      .replace(/^\[|\]$/g, '')
      .replace(/\.$/, '');
    const literal = parseAddress(host) !== undefined;
    for (const text of target.addresses) {
      const address = parseAddress(text);
      if (!address) return { allowed: false, reason: `${egressRefusal}: ${text} is not an IP address` };
      const matches = (rule: CompiledRule) =>
        (rule.port === undefined || rule.port === target.port) &&
        (rule.range ? inRange(address, rule.range) : !literal && hostMatches(rule.host ?? '', host));
      if (this.allow.some(matches)) continue;
      const shown = address.toString();
      const subject = literal || host === shown ? shown : `${host} (${shown})`;
      const own = this.isThisHost(address) && this.ownPorts().find((own) => own.port === target.port);
      if (own)
        return refused(
          `${subject} port ${target.port} is the Stepdeck service's own ${own.name} port on this host (denied by default; RUNNER_EGRESS_ALLOW can permit it)`,
        );
      const metadata = this.metadata.find((range) => inRange(address, range));
      if (metadata)
        return refused(
          `${subject} is in ${metadata[0].toString()}/${metadata[1]} (link-local and cloud metadata, denied by default; RUNNER_EGRESS_ALLOW can permit it)`,
        );
      const denied = this.deny.find(matches);
      if (denied) {
        const range = denied.range && denied.range[1] < (denied.range[0].kind() === 'ipv4' ? 32 : 128);
        const what = range ? 'is in' : 'matches';
        const port = denied.port === undefined ? '' : ` port ${target.port}`;
        return refused(`${subject}${port} ${what} ${denied.text} (${denied.source ?? 'RUNNER_EGRESS_DENY'})`);
      }
    }
    return { allowed: true };
  }

  private isThisHost(address: Address): boolean {
    if (this.local.some((range) => inRange(address, range))) return true;
    const now = Date.now();
    if (!this.interfaces || now - this.interfaces.at > interfacesTtlMs) {
      const addresses = this.hostAddresses()
        .map(parseAddress)
        .filter((parsed): parsed is Address => parsed !== undefined);
      this.interfaces = { at: now, addresses };
    }
    const shown = address.toString();
    return this.interfaces.addresses.some((own) => own.kind() === address.kind() && own.toString() === shown);
  }
}

function refused(reason: string): EgressVerdict {
  return { allowed: false, reason: `${egressRefusal}: ${reason}` };
}

/** Every address of this host's interfaces. */
function interfaceAddresses(): string[] {
  return Object.values(os.networkInterfaces())
    .flat()
    .map((entry) => entry?.address)
    .filter((address): address is string => typeof address === 'string');
}
