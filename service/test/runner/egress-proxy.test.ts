import { createHash } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEgressRules } from '../../src/runner/egress.ts';
import {
  EGRESS_BLOCKED_HEADER,
  EGRESS_ERROR_HEADER,
  type EgressProxy,
  egressEnv,
  type ResolvedAddress,
  startEgressProxy,
} from '../../src/runner/egress-proxy.ts';

/**
 * The runner's egress proxy on loopback: plain-HTTP forwarding, CONNECT tunnels and
 * upgrades, each resolved once, checked, and connected to the address checked; streamed with
 * backpressure; refusals and unreachable targets answered so that the runtime can say why.
 */

async function listen(server: net.Server, host = '127.0.0.1', port = 0): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return (server.address() as net.AddressInfo).port;
}

/** A request through the proxy in absolute form; resolves with status, headers and body. */
function viaProxy(
  proxy: EgressProxy,
  url: string,
  options: { method?: string; body?: Buffer; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port: proxy.port,
        path: url,
        method: options.method ?? 'GET',
        headers: options.headers,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks).toString(),
          }),
        );
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

/** A CONNECT to the proxy: its status line and headers, and the tunnel when it is one. */
function connect(proxy: EgressProxy, authority: string): Promise<{ head: string; socket: net.Socket }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port: proxy.port });
    let received = '';
    socket.on('error', reject);
    socket.on('connect', () => socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`));
    const onData = (chunk: Buffer) => {
      received += chunk.toString('latin1');
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      resolve({ head: received.slice(0, end), socket });
    };
    socket.on('data', onData);
  });
}

describe('the runner’s egress proxy', () => {
  let site: http.Server;
  let sitePort: number;
  /** Stands for the service: its port is one of the "own" ports the proxy must refuse. */
  let service: http.Server;
  let servicePort: number;
  const serviceHits: string[] = [];
  let proxy: EgressProxy;

  beforeAll(async () => {
    site = http.createServer((request, response) => {
      if (request.url === '/echo') {
        const hash = createHash('sha256');
        let size = 0;
        request.on('data', (chunk: Buffer) => {
          hash.update(chunk);
          size += chunk.length;
        });
        request.on('end', () => response.end(JSON.stringify({ size, sha: hash.digest('hex') })));
        return;
      }
      if (request.url === '/to-service') {
        response.writeHead(302, { location: `http://127.0.0.1:${servicePort}/metrics` }).end();
        return;
      }
      response.writeHead(200, {
        'content-type': 'text/plain',
        'x-seen-host': request.headers.host ?? '',
        'x-seen-proxy-connection': String(request.headers['proxy-connection'] ?? 'none'),
        // A site pretending to be the proxy: dropped on the way.
        [EGRESS_BLOCKED_HEADER]: 'spoofed',
      });
      response.end(`hello ${request.method} ${request.url}`);
    });
    site.on('upgrade', (_request, socket: net.Socket) => {
      socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n');
      socket.pipe(socket);
    });
    sitePort = await listen(site);
    service = http.createServer((request, response) => {
      serviceHits.push(request.url ?? '');
      response.end('stepdeck_metrics 1');
    });
    servicePort = await listen(service);
    proxy = await startEgressProxy({
      deny: parseEgressRules('127.0.0.3/32', 'RUNNER_EGRESS_DENY'),
      allow: [],
      ownPorts: () => [{ port: servicePort, name: 'HTTP' }],
    });
  });
  afterAll(async () => {
    await proxy?.close();
    site?.closeAllConnections();
    service?.closeAllConnections();
    await new Promise((resolve) => site?.close(resolve));
    await new Promise((resolve) => service?.close(resolve));
  });

  it('is what runs get while it runs, and listens on loopback', () => {
    expect(egressEnv()).toEqual({ STEPDECK_EGRESS_PROXY: proxy.url });
    expect(proxy.url).toBe(`http://127.0.0.1:${proxy.port}`);
  });

  it('forwards plain HTTP, without hop-by-hop headers or a spoofed refusal', async () => {
    const answer = await viaProxy(proxy, `http://127.0.0.1:${sitePort}/page?x=1`, {
      headers: { 'proxy-connection': 'keep-alive' },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toBe('hello GET /page?x=1');
    expect(answer.headers['x-seen-host']).toBe(`127.0.0.1:${sitePort}`);
    expect(answer.headers['x-seen-proxy-connection']).toBe('none');
    expect(answer.headers[EGRESS_BLOCKED_HEADER]).toBeUndefined();
  });

  it('refuses the service’s port and denied addresses, whatever the name or number form, naming the rule', async () => {
    for (const host of [
      '127.0.0.1',
      'localhost',
      'anything.localhost',
      '[::1]',
      '0.0.0.0',
      '2130706433',
      '0x7f000001',
    ]) {
      const answer = await viaProxy(proxy, `http://${host}:${servicePort}/metrics`);
      expect(answer.status, host).toBe(403);
      expect(answer.headers[EGRESS_BLOCKED_HEADER], host).toMatch(
        new RegExp(
          `^blocked by the runner's egress rules: .*port ${servicePort} is the Stepdeck service's own HTTP port on this host \\(denied by default; RUNNER_EGRESS_ALLOW can permit it\\)$`,
        ),
      );
      expect(answer.body).toContain("blocked by the runner's egress rules");
    }
    // A redirect is the client's next request: refused the same way.
    const redirect = await viaProxy(proxy, `http://127.0.0.1:${sitePort}/to-service`);
    expect(redirect.status).toBe(302);
    const followed = await viaProxy(proxy, redirect.headers.location as string);
    expect(followed.status).toBe(403);
    const metadata = await viaProxy(proxy, 'http://169.254.169.254/latest/meta-data/');
    expect(metadata.headers[EGRESS_BLOCKED_HEADER]).toBe(
      "blocked by the runner's egress rules: 169.254.169.254 is in 169.254.0.0/16 (link-local and cloud metadata, denied by default; RUNNER_EGRESS_ALLOW can permit it)",
    );
    const denied = await viaProxy(proxy, `http://127.0.0.3:${sitePort}/`);
    expect(denied.headers[EGRESS_BLOCKED_HEADER]).toBe(
      "blocked by the runner's egress rules: 127.0.0.3 matches 127.0.0.3 (RUNNER_EGRESS_DENY)",
    );
    // Its own port too (a loop).
    expect((await viaProxy(proxy, `${proxy.url}/`)).headers[EGRESS_BLOCKED_HEADER]).toContain(
      'own egress proxy port',
    );
    expect(serviceHits).toEqual([]);
  });

  it('tunnels CONNECT to allowed targets and refuses the others with the rule', async () => {
    const tunnel = await connect(proxy, `127.0.0.1:${sitePort}`);
    expect(tunnel.head).toMatch(/^HTTP\/1\.1 200 /);
    const reply = await new Promise<string>((resolve) => {
      let text = '';
      tunnel.socket.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        if (text.includes('hello')) resolve(text);
      });
      tunnel.socket.write(
        `GET /tunnelled HTTP/1.1\r\nHost: 127.0.0.1:${sitePort}\r\nConnection: close\r\n\r\n`,
      );
    });
    expect(reply).toContain('hello GET /tunnelled');
    tunnel.socket.destroy();

    for (const authority of [
      `127.0.0.1:${servicePort}`,
      `localhost:${servicePort}`,
      `[::1]:${servicePort}`,
      `2130706433:${servicePort}`,
      '169.254.169.254:443',
      '[fd00:ec2::254]:80',
    ]) {
      const refused = await connect(proxy, authority);
      expect(refused.head, authority).toMatch(/^HTTP\/1\.1 403 /);
      expect(refused.head, authority).toContain(
        `${EGRESS_BLOCKED_HEADER}: blocked by the runner's egress rules: `,
      );
      refused.socket.destroy();
    }
    const malformed = await connect(proxy, 'no-port');
    expect(malformed.head).toMatch(/^HTTP\/1\.1 400 /);
    malformed.socket.destroy();
    expect(serviceHits).toEqual([]);
  });

  it('answers an unreachable target with its network error (502), for the runtime to report', async () => {
    const closed = net.createServer();
    const port = await listen(closed);
    await new Promise((resolve) => closed.close(resolve));
    const plain = await viaProxy(proxy, `http://127.0.0.1:${port}/`);
    expect(plain.status).toBe(502);
    expect(plain.headers[EGRESS_ERROR_HEADER]).toBe(`ECONNREFUSED connect ECONNREFUSED 127.0.0.1:${port}`);
    const tunnel = await connect(proxy, `127.0.0.1:${port}`);
    expect(tunnel.head).toMatch(/^HTTP\/1\.1 502 /);
    expect(tunnel.head).toContain(
      `${EGRESS_ERROR_HEADER}: ECONNREFUSED connect ECONNREFUSED 127.0.0.1:${port}`,
    );
    tunnel.socket.destroy();
    const unknown = await viaProxy(proxy, 'http://no-such-host.invalid/');
    expect(unknown.status).toBe(502);
    expect(unknown.headers[EGRESS_ERROR_HEADER]).toMatch(/^(ENOTFOUND|EAI_AGAIN) /);
  });

  it('passes upgrades (WebSockets in absolute form) through once checked', async () => {
    const upgrade = (url: string) =>
      new Promise<{ socket?: net.Socket; status?: number; headers?: http.IncomingHttpHeaders }>(
        (resolve, reject) => {
          const request = http.request({
            host: '127.0.0.1',
            port: proxy.port,
            path: url,
            headers: { connection: 'Upgrade', upgrade: 'echo' },
          });
          request.on('upgrade', (_response, socket: net.Socket) => resolve({ socket }));
          request.on('response', (response) => {
            response.resume();
            resolve({ status: response.statusCode, headers: response.headers });
          });
          request.on('error', reject);
          request.end();
        },
      );
    const open = await upgrade(`http://127.0.0.1:${sitePort}/ws`);
    const echoed = await new Promise<string>((resolve) => {
      open.socket?.once('data', (chunk: Buffer) => resolve(chunk.toString()));
      open.socket?.write('ping');
    });
    expect(echoed).toBe('ping');
    open.socket?.destroy();
    const refused = await upgrade(`http://127.0.0.1:${servicePort}/ws`);
    expect(refused.status).toBe(403);
    expect(refused.headers?.[EGRESS_BLOCKED_HEADER]).toContain('own HTTP port');
  });

  it('streams large bodies both ways with backpressure, holding none in memory', async () => {
    // Up: 64 MiB in, hashed by the site.
    const size = 64 * 1024 * 1024;
    const chunk = Buffer.alloc(1024 * 1024, 7);
    const expected = createHash('sha256');
    for (let sent = 0; sent < size; sent += chunk.length) expected.update(chunk);
    const up = await new Promise<string>((resolve, reject) => {
      const request = http.request(
        { host: '127.0.0.1', port: proxy.port, path: `http://127.0.0.1:${sitePort}/echo`, method: 'POST' },
        (response) => {
          let text = '';
          response.on('data', (part: Buffer) => {
            text += part.toString();
          });
          response.on('end', () => resolve(text));
        },
      );
      request.on('error', reject);
      let sent = 0;
      const pump = () => {
        while (sent < size) {
          sent += chunk.length;
          if (!request.write(chunk)) return void request.once('drain', pump);
        }
        request.end();
      };
      pump();
    });
    expect(JSON.parse(up)).toEqual({ size, sha: expected.digest('hex') });

    // Down: a source that writes only when the way is free, read by a client that pauses.
    let written = 0;
    const total = 192 * 1024 * 1024;
    const source = http.createServer((_request, response) => {
      const pump = () => {
        while (written < total) {
          written += chunk.length;
          if (!response.write(chunk)) return void response.once('drain', pump);
        }
        response.end();
      };
      pump();
    });
    const sourcePort = await listen(source);
    try {
      const received = await new Promise<number>((resolve, reject) => {
        http
          .get(
            { host: '127.0.0.1', port: proxy.port, path: `http://127.0.0.1:${sourcePort}/big` },
            (response) => {
              response.pause();
              setTimeout(() => {
                // Paused for a second: the source stopped soon after the buffers filled.
                expect(written).toBeLessThan(64 * 1024 * 1024);
                let count = 0;
                response.on('data', (part: Buffer) => {
                  count += part.length;
                });
                response.on('end', () => resolve(count));
                response.resume();
              }, 1000);
            },
          )
          .on('error', reject);
      });
      expect(received).toBe(total);
    } finally {
      source.closeAllConnections();
      await new Promise((resolve) => source.close(resolve));
    }
  }, 60_000);
});

describe('the proxy connects to the address it checked (no DNS rebinding)', () => {
  it('tries a name’s checked addresses in order until one accepts', async () => {
    const site = http.createServer((_request, response) => response.end('on 127.0.0.1 only'));
    const port = await listen(site);
    const proxy = await startEgressProxy({
      deny: [],
      allow: [],
      ownPorts: () => [],
      resolve: async () => [
        { address: '::1', family: 6 },
        { address: '127.0.0.1', family: 4 },
      ],
    });
    try {
      const answer = await viaProxy(proxy, `http://dual.example:${port}/`);
      expect(answer.body).toBe('on 127.0.0.1 only');
      const tunnel = await connect(proxy, `dual.example:${port}`);
      expect(tunnel.head).toMatch(/^HTTP\/1\.1 200 /);
      tunnel.socket.destroy();
    } finally {
      await proxy.close();
      site.closeAllConnections();
      await new Promise((resolve) => site.close(resolve));
    }
  });

  it('resolves once per connection and connects there, even when the name resolves elsewhere later', async () => {
    // The same port on two loopback addresses: the allowed site, and a "victim" the rules deny.
    const seen: string[] = [];
    const allowed = http.createServer((_request, response) => {
      seen.push('allowed');
      response.end('allowed site');
    });
    const port = await listen(allowed, '127.0.0.2');
    const victim = http.createServer((_request, response) => {
      seen.push('victim');
      response.end('victim');
    });
    await listen(victim, '127.0.0.3', port);
    const answers: ResolvedAddress[][] = [
      [{ address: '127.0.0.2', family: 4 }],
      [{ address: '127.0.0.3', family: 4 }],
    ];
    const lookups: string[] = [];
    const proxy = await startEgressProxy({
      deny: parseEgressRules('127.0.0.3', 'RUNNER_EGRESS_DENY'),
      allow: [],
      ownPorts: () => [],
      // A rebinding name server: a harmless answer first, the denied address afterwards.
      resolve: async (host) => {
        lookups.push(host);
        return answers[Math.min(lookups.length - 1, answers.length - 1)] as ResolvedAddress[];
      },
    });
    try {
      const first = await viaProxy(proxy, `http://rebind.example:${port}/`);
      expect(first.body).toBe('allowed site');
      expect(lookups).toEqual(['rebind.example']);
      const second = await viaProxy(proxy, `http://rebind.example:${port}/`);
      expect(second.status).toBe(403);
      expect(second.headers[EGRESS_BLOCKED_HEADER]).toBe(
        "blocked by the runner's egress rules: rebind.example (127.0.0.3) matches 127.0.0.3 (RUNNER_EGRESS_DENY)",
      );
      const tunnel = await connect(proxy, `rebind.example:${port}`);
      expect(tunnel.head).toMatch(/^HTTP\/1\.1 403 /);
      tunnel.socket.destroy();
      expect(seen).toEqual(['allowed']);
    } finally {
      await proxy.close();
      for (const server of [allowed, victim]) {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    }
    expect(egressEnv()).toEqual({});
  });
});
