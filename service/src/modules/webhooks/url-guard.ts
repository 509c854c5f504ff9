import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { appError } from '../../errors.ts';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address it has; injectable so tests control DNS. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) => {
  const found = await dns.promises.lookup(hostname, { all: true, verbatim: true });
  return found.map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }));
};

/** A URL that passed every rule, with the addresses it was checked against (connect to these only). */
export interface CheckedTarget {
  url: URL;
  hostname: string;
  addresses: ResolvedAddress[];
}

/** Thrown for a URL that breaks a rule; the message names the rule. */
export class UrlRuleError extends Error {}

export interface UrlGuardOptions {
  resolve: Resolver;
  /** CIDRs (normalised, e.g. `127.0.0.1/32`) exempt from the address rule. */
  allowedTargets: string[];
}

/**
 * Addresses refused by the spec's rule 3: private, loopback, link-local, carrier-grade NAT,
 * unique-local and every IPv4-mapped IPv6 address. Anything else that is not plain global
 * unicast (unspecified 0.0.0.0 and ::, broadcast, multicast, reserved, NAT64 and other
 * translation prefixes) is refused as well: 0.0.0.0 reaches the local host on Linux.
 */
export function isRefusedAddress(address: string, allowedTargets: string[] = []): boolean {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    const family = net.isIP(address);
    if (family === 0) return true;
    parsed = family === 4 ? ipaddr.IPv4.parse(address) : ipaddr.IPv6.parse(address);
  } catch {
    return true;
  }
  // IPv4-mapped (::ffff:a.b.c.d) and the deprecated IPv4-compatible form (::a.b.c.d, e.g.
  // ::7f00:1 for 127.0.0.1) both carry an IPv4 address; both are refused like the mapped one.
  const mapped =
    parsed.kind() === 'ipv6' &&
    ((parsed as ipaddr.IPv6).isIPv4MappedAddress() || isIPv4Compatible(parsed as ipaddr.IPv6));
  const effective = mapped ? ipv4Inside(parsed as ipaddr.IPv6) : parsed;
  for (const cidr of allowedTargets) {
    const [range, bits] = parsedCidr(cidr);
    if (range.kind() === effective.kind() && effective.match(range, bits)) return false;
  }
  if (mapped) return true;
  return effective.range() !== 'unicast';
}

/** `::a.b.c.d` (RFC 4291 2.5.5.1), other than `::` and `::1`. */
function isIPv4Compatible(address: ipaddr.IPv6): boolean {
  const parts = address.parts;
  return parts.slice(0, 6).every((part) => part === 0) && ((parts[6] ?? 0) !== 0 || (parts[7] ?? 0) > 1);
}

function ipv4Inside(address: ipaddr.IPv6): ipaddr.IPv4 {
  const bytes = address.toByteArray().slice(12);
  return new ipaddr.IPv4(bytes);
}

const cidrs = new Map<string, [ipaddr.IPv4 | ipaddr.IPv6, number]>();

function parsedCidr(cidr: string): [ipaddr.IPv4 | ipaddr.IPv6, number] {
  let parsed = cidrs.get(cidr);
  if (!parsed) {
    parsed = ipaddr.parseCIDR(cidr);
    cidrs.set(cidr, parsed);
  }
  return parsed;
}

const describeRefused = 'a private, loopback, link-local or carrier-grade NAT address';

/** Checks a webhook URL against every rule, resolving its host. Throws UrlRuleError. */
export async function checkTargetUrl(raw: string, options: UrlGuardOptions): Promise<CheckedTarget> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UrlRuleError('url must be an absolute https:// URL');
  }
  if (url.protocol !== 'https:') throw new UrlRuleError('url must use https://');
  if (url.username !== '' || url.password !== '') throw new UrlRuleError('url must not contain credentials');
  // WHATWG URL keeps IPv6 literals in brackets and normalises IPv4 forms (0x7f.1 → 127.0.0.1).
  const hostname = url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  if (hostname === '') throw new UrlRuleError('url must name a host');
  if (hostname === 'localhost' || hostname.endsWith('.localhost')) {
    throw new UrlRuleError('url must not point to localhost');
  }
  if (net.isIP(hostname) !== 0) {
    if (isRefusedAddress(hostname, options.allowedTargets)) {
      throw new UrlRuleError(`url must not point to ${describeRefused} (${hostname})`);
    }
    return { url, hostname, addresses: [{ address: hostname, family: net.isIPv6(hostname) ? 6 : 4 }] };
  }
  let addresses: ResolvedAddress[];
  try {
    addresses = await options.resolve(hostname);
  } catch {
    throw new UrlRuleError(`url host ${hostname} does not resolve`);
  }
  if (addresses.length === 0) throw new UrlRuleError(`url host ${hostname} does not resolve`);
  const refused = addresses.find((entry) => isRefusedAddress(entry.address, options.allowedTargets));
  if (refused) {
    throw new UrlRuleError(`url host ${hostname} resolves to ${describeRefused} (${refused.address})`);
  }
  return { url, hostname, addresses };
}

/** The same check for create/edit: a rule broken is a 400 naming it. */
export async function assertTargetUrl(raw: string, options: UrlGuardOptions): Promise<void> {
  try {
    await checkTargetUrl(raw, options);
  } catch (error) {
    if (error instanceof UrlRuleError) throw appError('WEBHOOK_URL_REFUSED', error.message);
    throw error;
  }
}

/**
 * A `lookup` for the dispatcher's connect options that answers only with the addresses
 * already checked, so the socket goes where the rules said (no second DNS resolution).
 */
export function pinnedLookup(target: CheckedTarget): net.LookupFunction {
  return ((hostname: string, options: dns.LookupOptions, callback: (...args: unknown[]) => void) => {
    if (hostname.replace(/\.$/, '').toLowerCase() !== target.hostname) {
      callback(new Error(`unexpected lookup for ${hostname}`));
      return;
    }
    const family = options?.family === 4 || options?.family === 6 ? options.family : undefined;
    const candidates = family
      ? target.addresses.filter((entry) => entry.family === family)
      : target.addresses;
    if (candidates.length === 0) {
      callback(Object.assign(new Error(`no checked address for ${hostname}`), { code: 'ENOTFOUND' }));
      return;
    }
    if (options?.all)
      callback(
        null,
        candidates.map((entry) => ({ ...entry })),
      );
    else callback(null, candidates[0]?.address, candidates[0]?.family);
  }) as unknown as net.LookupFunction;
}
