import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import pLimit, { type LimitFunction } from 'p-limit';
import type { DatabaseHandle, Db, DbKind } from '../adapters/db/index.ts';

/**
 * Write admission (docs/concurrency.md, "Reads under writes"): on the embedded SQLite every
 * part of a changing request (parsing its body, validating, its synchronous statements,
 * serializing the answer) runs on the one event loop the reads need too. With 50 clients
 * writing, 50 requests' work was interleaved in front of every step of a read. Changing
 * requests therefore wait in a FIFO, after authentication and before their body is read,
 * and only a few at once go on: a read waits behind those few, not behind every writer.
 */
export interface WriteAdmissionRules {
  /** Changing requests admitted at once; the rest wait, in arrival order, holding nothing. */
  atOnce: number;
  /**
   * A request holds its place for at most this long (then the next is admitted, and it goes
   * on as before): a slow upload or a long request cannot hold the others back longer.
   */
  leaseMs: number;
}

/**
 * Per database kind. SQLite: two at once, so one request's network and parsing overlaps with
 * another's statements (bench/reads-under-writes.ts). PostgreSQL: none; its transactions wait
 * on the server, not on this event loop, and `writeTurnRules` caps them.
 */
export const writeAdmissionRules: Record<DbKind, WriteAdmissionRules | undefined> = {
  sqlite: { atOnce: 2, leaseMs: 1000 },
  postgres: undefined,
};

const changingMethods = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** A FIFO of changing requests, `atOnce` admitted, each for as long as it runs or `leaseMs`. */
export class WriteAdmission {
  private readonly limit: LimitFunction;
  readonly rules: WriteAdmissionRules;

  constructor(rules: WriteAdmissionRules) {
    this.rules = rules;
    this.limit = pLimit(rules.atOnce);
  }

  /** Waits for a place; the place is given back by `leave` (idempotent) or at the lease's end. */
  async enter(): Promise<() => void> {
    const admitted = Promise.withResolvers<() => void>();
    void this.limit(
      () =>
        new Promise<void>((left) => {
          const timer = setTimeout(left, this.rules.leaseMs);
          timer.unref();
          admitted.resolve(() => {
            clearTimeout(timer);
            left();
          });
        }),
    );
    return admitted.promise;
  }

  /** Requests admitted now, and those waiting for a place. */
  get counts(): { admitted: number; waiting: number } {
    return { admitted: this.limit.activeCount, waiting: this.limit.pendingCount };
  }
}

/** Per database: the admission of its app's changing requests (`admitWrites`). */
const admissions = new WeakMap<Db, WriteAdmission>();

/**
 * How changing requests are admitted on the app of `db`; `undefined` lifts it, for the
 * benchmark's comparison with how it was before.
 */
export function admitWrites(db: Db, rules: WriteAdmissionRules | undefined): void {
  if (rules) admissions.set(db, new WriteAdmission(rules));
  else admissions.delete(db);
}

export function writeAdmissionOf(db: Db): WriteAdmission | undefined {
  return admissions.get(db);
}

const leaving = Symbol('write admission: leave');
type AdmittedRequest = FastifyRequest & { [leaving]?: () => void };

/**
 * Registered after the auth plugin: its route-level hook runs after authentication (and the
 * rate limiter), so a refused request never waits for a place, and before the body is read.
 */
export const writeAdmissionPlugin = fp(
  async (app: FastifyInstance, options: { database: DatabaseHandle }) => {
    const { db } = options.database;
    admitWrites(db, writeAdmissionRules[options.database.kind]);

    const enter: onRequestHookHandler = async (request, reply) => {
      const admission = admissions.get(db);
      if (!admission || !changingMethods.has(request.method)) return;
      const leave = await admission.enter();
      (request as AdmittedRequest)[leaving] = leave;
      // Also when the connection closes after the answer began (no 'finish', no abort hook).
      reply.raw.once('close', leave);
    };
    const leave = async (request: FastifyRequest) => {
      (request as AdmittedRequest)[leaving]?.();
    };

    app.addHook('onRoute', (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      if (!methods.some((method) => changingMethods.has(method))) return;
      const existing = route.onRequest;
      route.onRequest = [
        ...(existing === undefined ? [] : Array.isArray(existing) ? existing : [existing]),
        enter,
      ];
    });
    // Answered (whatever the status), or its client went away: the place goes to the next.
    app.addHook('onResponse', async (request) => leave(request));
    app.addHook('onRequestAbort', leave);
  },
  { name: 'write-admission', dependencies: ['database'] },
);
