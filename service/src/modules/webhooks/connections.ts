import { createHash } from 'node:crypto';
import tls from 'node:tls';
import { Agent } from 'undici';
import { type CheckedTarget, pinnedLookup } from './url-guard.ts';

/** How long an idle kept-alive connection to a receiver stays open. */
const keepAliveMs = 2_000;
/** An agent unused for this long is closed and forgotten. */
const idleAgentMs = 30_000;

/**
 * An agent that connects only to the target's checked addresses under its host name. It
 * holds a snapshot of the target, so later checks of the same URL cannot change it.
 */
export function newAgent(target: CheckedTarget, ca?: string): Agent {
  return new Agent({
    connect: {
      lookup: pinnedLookup({ url: target.url, hostname: target.hostname, addresses: [...target.addresses] }),
      ...(ca ? { secureContext: secureContextFor(ca) } : {}),
    },
    allowH2: false,
    pipelining: 1,
    keepAliveTimeout: keepAliveMs,
    keepAliveMaxTimeout: keepAliveMs,
    // Redirects are never followed (undici's default without the redirect interceptor).
  });
}

const secureContexts = new Map<string, tls.SecureContext>();

/** One TLS context per extra CA (parsing the CA per connection costs more than the request). */
function secureContextFor(ca: string): tls.SecureContext {
  let context = secureContexts.get(ca);
  if (!context) {
    context = tls.createSecureContext({ ca: [...tls.rootCertificates, ca] });
    secureContexts.set(ca, context);
  }
  return context;
}

interface PooledAgent {
  agent: Agent;
  lastUsed: number;
}

/**
 * undici agents for webhook attempts, one per (origin, host name, exact set of checked
 * addresses). Each agent's `connect.lookup` answers only with the addresses of its key, so
 * every connection it opens — new, kept alive and reused, or resumed with a cached TLS
 * session — goes to an address that passed the URL rules. An attempt uses the agent whose
 * key equals what *its own* check just returned: when DNS changes, the key changes and the
 * old agent (and its connections) is not used for it. Reuse therefore keeps the
 * DNS-rebinding protection while saving the TCP and full TLS handshake per attempt.
 */
export class ConnectionPool {
  private readonly agents = new Map<string, PooledAgent>();
  private readonly sweeper: NodeJS.Timeout;
  private closed = false;

  constructor() {
    this.sweeper = setInterval(() => this.evictIdle(), idleAgentMs / 2);
    this.sweeper.unref();
  }

  /** The agent for a checked target; `ca` is an extra CA to trust (tests). */
  agentFor(target: CheckedTarget, ca?: string): Agent {
    if (this.closed) throw new Error('webhook connections are closed');
    const addresses = target.addresses
      .map((entry) => `${entry.family}/${entry.address}`)
      .sort()
      .join(',');
    const caKey = ca ? createHash('sha256').update(ca).digest('hex').slice(0, 16) : '';
    const key = `${target.url.origin}|${target.hostname}|${addresses}|${caKey}`;
    let pooled = this.agents.get(key);
    if (!pooled) {
      pooled = { agent: newAgent(target, ca), lastUsed: Date.now() };
      this.agents.set(key, pooled);
    }
    pooled.lastUsed = Date.now();
    return pooled.agent;
  }

  /** Number of agents currently kept (for tests and the benchmark). */
  get size(): number {
    return this.agents.size;
  }

  private evictIdle(): void {
    const cutoff = Date.now() - idleAgentMs;
    for (const [key, pooled] of this.agents) {
      if (pooled.lastUsed < cutoff) {
        this.agents.delete(key);
        pooled.agent.close().catch(() => undefined);
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    const agents = [...this.agents.values()];
    this.agents.clear();
    await Promise.allSettled(agents.map((pooled) => pooled.agent.destroy()));
  }
}
