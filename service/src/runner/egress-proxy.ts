/**
 * The runner's egress proxy: a small HTTP forward proxy on 127.0.0.1 (an ephemeral port) that
 * every run's browser and `request` fixture go through (the compiled config reads its address
 * from `STEPDECK_EGRESS_PROXY`, which the executor sets: {@link egressEnv}). For each plain-HTTP
 * request, CONNECT tunnel (https, WebSockets, every `request` step) and upgrade, it resolves the
 * host name once, checks the host and every address against the egress rules (egress.ts) and
 * connects to exactly those addresses: a name that resolves to another address on a second
 * lookup (DNS rebinding) cannot swap it. Bodies stream through with backpressure; nothing is
 * held in memory.
 *
 * A refusal is a 403 carrying {@link EGRESS_BLOCKED_HEADER} (the rule, in the user's words); a
 * target that could not be reached is a 502 carrying {@link EGRESS_ERROR_HEADER} (the network
 * error's code and text), so that the runtime (stepdeck-runtime.ts) fails the step as it would
 * have without the proxy. The run's own Node-side calls (the inbox polling of email steps, to
 * STEPDECK_API_URL) do not go through it.
 */
import dns from 'node:dns';
import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { pipeline } from 'node:stream';
import { EGRESS_PROXY_ENV_VAR } from './compiler/constants.ts';
import { EgressPolicy, type EgressRules, type OwnPort } from './egress.ts';

/** The variable that gives a run the proxy's URL (unset: no proxy, as in an exported project). */
export const EGRESS_PROXY_ENV = EGRESS_PROXY_ENV_VAR;
/** Set on a refusal (403); the runtime names the same headers (it cannot import this file). */
export const EGRESS_BLOCKED_HEADER = 'x-stepdeck-egress-blocked';
/** Set when the target could not be reached (502): `<code> <message>`, e.g. `ECONNREFUSED connect …`. */
export const EGRESS_ERROR_HEADER = 'x-stepdeck-egress-error';

export interface ResolvedAddress {
  address: string;
  family: number;
}
export type Resolver = (host: string) => Promise<ResolvedAddress[]>;

export interface EgressProxyOptions extends EgressRules {
  /** The service's listeners; the proxy adds its own port. */
  ownPorts: () => OwnPort[];
  /** This host's addresses besides loopback (default: the interfaces'); tests replace it. */
  hostAddresses?: () => string[];
  /** Resolves a host name once per connection (default: the system's, `*.localhost` as Chromium does). */
  resolve?: Resolver;
  /**
   * Rules added to `deny`/`allow` (the install's settings), read for every connection; a new
   * object (the settings changed) rebuilds the policy.
   */
  extraRules?: () => EgressRules;
}

export interface EgressProxy {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** What Chromium does with `localhost` and `*.localhost` (RFC 6761): loopback, whatever DNS says. */
export const defaultResolver: Resolver = async (host) => {
  const family = net.isIP(host);
  if (family) return [{ address: host, family }];
  const name = host.toLowerCase().replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost'))
    return [
      { address: '127.0.0.1', family: 4 },
      { address: '::1', family: 6 },
    ];
  return dns.promises.lookup(host, { all: true, order: 'verbatim' });
};

/** Hop-by-hop headers: the proxy's business, never forwarded. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** Raw headers (`[name, value, …]`) without hop-by-hop ones, those `Connection` names, and ours. */
function forwardable(raw: string[], keepUpgrade = false): string[] {
  const named = new Set<string>();
  for (let index = 0; index < raw.length; index += 2)
    if (raw[index]?.toLowerCase() === 'connection')
      for (const token of (raw[index + 1] ?? '').split(',')) named.add(token.trim().toLowerCase());
  const kept: string[] = [];
  for (let index = 0; index < raw.length; index += 2) {
    const name = (raw[index] ?? '').toLowerCase();
    const upgrade = keepUpgrade && (name === 'upgrade' || name === 'connection');
    if (!upgrade && (HOP_BY_HOP.has(name) || named.has(name))) continue;
    if (name.startsWith('x-stepdeck-egress')) continue;
    kept.push(raw[index] as string, raw[index + 1] as string);
  }
  return kept;
}

/** For a flat raw-header list: drops every `Host` name with its value. */
function notHost(_entry: string, index: number, raw: string[]): boolean {
  const name = index % 2 === 0 ? raw[index] : raw[index - 1];
  return name?.toLowerCase() !== 'host';
}

/** A header value from any text: printable ASCII only. */
function headerValue(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '?');
}

type Admission =
  | { ok: true; addresses: ResolvedAddress[]; host: string }
  | { ok: false; status: 403 | 502; header: string; value: string; text: string };

/** `host:port` of a CONNECT (`[::1]:443` for IPv6); undefined when malformed. */
function parseAuthority(authority: string | undefined): { host: string; port: number } | undefined {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(authority ?? '');
  const port = Number(match?.[3]);
  const host = match?.[1] ?? match?.[2];
  if (!host || !(port >= 1 && port <= 65535)) return undefined;
  return { host, port };
}

/**
 * A connection to the first of the checked addresses that accepts one, tried in order (no
 * happy-eyeballs timer: under load it gives up on a loopback connection that was about to
 * succeed); fails with the first address's error.
 */
export function connectPinned(addresses: ResolvedAddress[], port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    let first: Error | undefined;
    const attempt = (index: number) => {
      const target = addresses[index];
      if (!target) {
        reject(first ?? new Error('no address to connect to'));
        return;
      }
      const socket = net.connect({
        host: target.address,
        port,
        family: target.family,
        autoSelectFamily: false,
      });
      const failed = (error: Error) => {
        socket.destroy();
        first ??= error;
        attempt(index + 1);
      };
      socket.once('error', failed);
      socket.once('connect', () => {
        socket.off('error', failed);
        resolve(socket);
      });
    };
    attempt(0);
  });
}

/** Plain-HTTP forwarding's connections (kept alive): each to the addresses its request was checked with. */
class PinnedAgent extends http.Agent {
  override createConnection(
    options: http.ClientRequestArgs & { pinned?: ResolvedAddress[] },
    callback?: (error: Error | null, socket: Duplex) => void,
  ): Duplex | undefined {
    connectPinned(options.pinned ?? [], Number(options.port)).then(
      (socket) => callback?.(null, socket),
      (error: Error) => callback?.(error, undefined as unknown as Duplex),
    );
    return undefined;
  }
}

function networkError(error: unknown): { code: string; message: string } {
  const { code, message } = error as { code?: string; message?: string };
  return { code: code ?? 'ERR_FAILED', message: message ?? String(error) };
}

let active: string | undefined;

/** The environment a run gets (executor.ts): the proxy's URL while one runs in this process. */
export function egressEnv(): Record<string, string> {
  return active ? { [EGRESS_PROXY_ENV]: active } : {};
}

/**
 * Starts the proxy on 127.0.0.1 and makes it the one this process's runs use
 * ({@link egressEnv}) until it is closed.
 */
export async function startEgressProxy(options: EgressProxyOptions): Promise<EgressProxy> {
  let ownPort = 0;
  const policyWith = (extra: EgressRules | undefined) =>
    new EgressPolicy({
      deny: [...options.deny, ...(extra?.deny ?? [])],
      allow: [...options.allow, ...(extra?.allow ?? [])],
      ownPorts: () => [...options.ownPorts(), ...(ownPort ? [{ port: ownPort, name: 'egress proxy' }] : [])],
      hostAddresses: options.hostAddresses,
    });
  let extraSeen = options.extraRules?.();
  let policy = policyWith(extraSeen);
  const currentPolicy = () => {
    const extra = options.extraRules?.();
    if (extra !== extraSeen) {
      extraSeen = extra;
      policy = policyWith(extra);
    }
    return policy;
  };
  const resolve = options.resolve ?? defaultResolver;
  const agent = new PinnedAgent({ keepAlive: true });
  const tunnels = new Set<Duplex>();

  const admit = async (rawHost: string, port: number): Promise<Admission> => {
    const host = rawHost.replace(/^\[|\]$/g, '');
    let addresses: ResolvedAddress[];
    try {
      addresses = await resolve(host);
      if (addresses.length === 0)
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    } catch (error) {
      const { code, message } = networkError(error);
      return {
        ok: false,
        status: 502,
        header: EGRESS_ERROR_HEADER,
        value: `${code} ${message}`,
        text: message,
      };
    }
    const verdict = currentPolicy().check({ host, port, addresses: addresses.map((entry) => entry.address) });
    if (!verdict.allowed)
      return {
        ok: false,
        status: 403,
        header: EGRESS_BLOCKED_HEADER,
        value: verdict.reason,
        text: verdict.reason,
      };
    return { ok: true, addresses, host };
  };

  const refuseRaw = (socket: Duplex, admission: Extract<Admission, { ok: false }>) => {
    const status = admission.status === 403 ? '403 Forbidden' : '502 Bad Gateway';
    socket.end(
      `HTTP/1.1 ${status}\r\n${admission.header}: ${headerValue(admission.value)}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n`,
    );
  };

  const server = http.createServer((request, response) => {
    void forward(request, response);
  });
  // Long uploads and downloads are the client's and the target's business, not a proxy timeout's.
  server.requestTimeout = 0;

  const forward = async (request: http.IncomingMessage, response: http.ServerResponse) => {
    let url: URL;
    try {
      url = new URL(request.url ?? '');
    } catch {
      response
        .writeHead(400, { 'content-type': 'text/plain' })
        .end('a proxy request needs an absolute URL\n');
      return;
    }
    if (url.protocol !== 'http:') {
      response
        .writeHead(400, { 'content-type': 'text/plain' })
        .end('only http: URLs are forwarded; use CONNECT\n');
      return;
    }
    const port = Number(url.port || 80);
    const admission = await admit(url.hostname, port);
    if (!admission.ok) {
      response
        .writeHead(admission.status, {
          [admission.header]: headerValue(admission.value),
          'content-type': 'text/plain; charset=utf-8',
          'cache-control': 'no-store',
        })
        .end(`${admission.text}\n`);
      request.resume();
      return;
    }
    const upstream = http.request({
      host: admission.host,
      port,
      method: request.method,
      path: `${url.pathname}${url.search}`,
      // The URL's authority is the host asked for, whatever Host the client sent (RFC 9112, 3.2.2).
      headers: [...forwardable(request.rawHeaders).filter(notHost), 'Host', url.host],
      setHost: false,
      agent,
      pinned: admission.addresses,
    } as http.RequestOptions);
    upstream.on('response', (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.statusMessage, forwardable(answer.rawHeaders));
      pipeline(answer, response, () => {});
    });
    upstream.on('error', (error) => {
      if (response.headersSent) {
        response.destroy();
        return;
      }
      const { code, message } = networkError(error);
      response
        .writeHead(502, {
          [EGRESS_ERROR_HEADER]: headerValue(`${code} ${message}`),
          'content-type': 'text/plain; charset=utf-8',
          'cache-control': 'no-store',
        })
        .end(`${message}\n`);
    });
    // The client went away before the answer was complete: so does the request upstream.
    response.on('close', () => {
      if (!response.writableFinished) upstream.destroy();
    });
    pipeline(request, upstream, () => {});
  };

  /**
   * Connects to the checked addresses, then joins the two sockets both ways (after `prelude`
   * to the target and `greeting` to the client); a failed connection is a 502 naming its error.
   */
  const tunnel = (
    client: Duplex,
    admission: Extract<Admission, { ok: true }>,
    port: number,
    head: Buffer,
    prelude: string,
    greeting: string,
  ) => {
    connectPinned(admission.addresses, port).then(
      (upstream) => {
        if (client.destroyed) {
          upstream.destroy();
          return;
        }
        upstream.on('error', () => client.destroy());
        upstream.on('close', () => client.destroy());
        client.on('close', () => upstream.destroy());
        if (prelude) upstream.write(prelude);
        if (greeting) client.write(greeting);
        if (head.length > 0) upstream.write(head);
        client.pipe(upstream);
        upstream.pipe(client);
      },
      (error: unknown) => {
        const { code, message } = networkError(error);
        refuseRaw(client, {
          ok: false,
          status: 502,
          header: EGRESS_ERROR_HEADER,
          value: `${code} ${message}`,
          text: message,
        });
      },
    );
  };

  server.on('connect', (request: http.IncomingMessage, client: Duplex, head: Buffer) => {
    client.on('error', () => {});
    tunnels.add(client);
    client.on('close', () => tunnels.delete(client));
    void (async () => {
      const authority = parseAuthority(request.url);
      if (!authority) {
        client.end('HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
        return;
      }
      const admission = await admit(authority.host, authority.port);
      if (!admission.ok) return refuseRaw(client, admission);
      tunnel(client, admission, authority.port, head, '', 'HTTP/1.1 200 Connection Established\r\n\r\n');
    })();
  });

  // A WebSocket (or other upgrade) asked for in absolute form: checked, then passed through.
  server.on('upgrade', (request: http.IncomingMessage, client: Duplex, head: Buffer) => {
    client.on('error', () => {});
    tunnels.add(client);
    client.on('close', () => tunnels.delete(client));
    void (async () => {
      let url: URL;
      try {
        url = new URL(request.url ?? '');
        if (url.protocol !== 'http:') throw new Error('not http');
      } catch {
        client.end('HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
        return;
      }
      const port = Number(url.port || 80);
      const admission = await admit(url.hostname, port);
      if (!admission.ok) return refuseRaw(client, admission);
      const headers = [...forwardable(request.rawHeaders, true).filter(notHost), 'Host', url.host];
      let head0 = `${request.method} ${url.pathname}${url.search} HTTP/1.1\r\n`;
      for (let index = 0; index < headers.length; index += 2)
        head0 += `${headers[index]}: ${headers[index + 1]}\r\n`;
      tunnel(client, admission, port, head, `${head0}\r\n`, '');
    })();
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  ownPort = (server.address() as net.AddressInfo).port;
  const url = `http://127.0.0.1:${ownPort}`;
  active = url;
  return {
    url,
    port: ownPort,
    async close() {
      if (active === url) active = undefined;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      for (const socket of tunnels) socket.destroy();
      agent.destroy();
      await closed;
    },
  };
}
