import {
  liveReplayBusy,
  liveSessionCreateBody,
  liveSessionResponse,
  noPayloadResponse,
  uuid,
} from '@stepdeck/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { WebSocket } from 'ws';
import { z } from 'zod';
import { appError } from '../../errors.ts';
import { session } from '../../plugins/auth/access.ts';
import { requireUser } from '../../plugins/auth/index.ts';
import { InputRate, parseClientMessage } from './messages.ts';
import type { LiveSession, LiveSessionsService } from './service.ts';

const tags = ['console'];
const projectParams = z.object({ projectId: uuid });
const sessionParams = z.object({ projectId: uuid, sessionId: uuid });

/** Input messages a stream accepts per second (mouse moves come at the display's rate). */
const INPUT_PER_SECOND = 120;
/** Frames not yet written to a slow console are dropped beyond this many bytes buffered. */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

const owner = (request: FastifyRequest) => {
  const user = requireUser(request);
  return { userId: user.userId, organizationId: user.organizationId };
};

const described = (live: LiveSession) => ({
  id: live.id,
  projectId: live.projectId,
  testId: live.testId,
  viewport: live.viewport,
  startedAt: live.startedAt.toISOString(),
  streamPath: `/console/v1/projects/${live.projectId}/live-sessions/${live.id}/stream`,
});

/**
 * A WebSocket upgrade cannot carry the console's CSRF header, so the rule that protects
 * cookie-authenticated requests is the `Origin` check here: a page of another site opening
 * the stream with the user's cookie (cross-site WebSocket hijacking) is refused.
 */
function requireSameOrigin(request: FastifyRequest, publicUrl: string): void {
  const origin = request.headers.origin;
  if (!origin) throw appError('LIVE_SESSION_ORIGIN_REFUSED');
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    throw appError('LIVE_SESSION_ORIGIN_REFUSED');
  }
  const allowed = new Set([request.headers.host, new URL(publicUrl).host]);
  if (!allowed.has(host)) throw appError('LIVE_SESSION_ORIGIN_REFUSED');
}

/** Console only: a live browser belongs to one signed-in user. */
export async function liveSessionRoutes(
  parent: FastifyInstance,
  service: LiveSessionsService,
): Promise<void> {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  app.post(
    '/console/v1/projects/:projectId/live-sessions',
    {
      config: { access: session('change') },
      schema: {
        summary: 'Start a live browser for the signed-in user (one per user)',
        response: { 201: liveSessionResponse },
        tags,
        params: projectParams,
        body: liveSessionCreateBody,
      },
    },
    async (request, reply) => {
      const live = await service.start(owner(request), {
        projectId: request.params.projectId,
        ...request.body,
      });
      return reply.code(201).send({ data: described(live) });
    },
  );
  app.delete(
    '/console/v1/projects/:projectId/live-sessions/:sessionId',
    {
      config: { access: session('change') },
      schema: {
        summary: 'Close a live browser',
        response: { 200: noPayloadResponse },
        tags,
        params: sessionParams,
      },
    },
    async (request) => {
      await service.end(owner(request), request.params.projectId, request.params.sessionId);
      return { data: null };
    },
  );
  app.get(
    '/console/v1/projects/:projectId/live-sessions/:sessionId/stream',
    {
      websocket: true,
      config: { access: session('change') },
      // Not in the OpenAPI document (@fastify/websocket hides upgrades): docs/console.md describes it.
      schema: { params: sessionParams },
      // Before the upgrade: a refusal is a plain HTTP answer (403, 404), never an open socket.
      preHandler: async (request) => {
        requireSameOrigin(request, service.publicUrl);
        const { projectId, sessionId } = request.params as z.infer<typeof sessionParams>;
        service.get(owner(request), projectId, sessionId);
      },
    },
    (socket, request) => {
      const { projectId, sessionId } = request.params as z.infer<typeof sessionParams>;
      let live: LiveSession;
      try {
        live = service.get(owner(request), projectId, sessionId);
      } catch {
        socket.close(4404, 'Live session not found');
        return;
      }
      stream(socket, live, service);
    },
  );
}

/** Moves frames and events out and input in for one connection; a newer connection takes over. */
function stream(socket: WebSocket, live: LiveSession, service: LiveSessionsService): void {
  const send = (event: object) => {
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(event));
  };
  const listener = {
    frame(jpeg: Buffer) {
      if (socket.readyState === socket.OPEN && socket.bufferedAmount < MAX_BUFFERED_BYTES) socket.send(jpeg);
    },
    event: send,
  };
  const ended = (reason: string) => {
    send({ type: 'ended', reason });
    socket.close(1000, reason.slice(0, 120));
  };
  live.onEnd.add(ended);
  const rate = new InputRate(INPUT_PER_SECOND);
  let warned = false;
  // One message at a time, in order: a click's down and up must reach the page in sequence.
  let queue = Promise.resolve();
  socket.on('message', (data: Buffer, binary: boolean) => {
    if (binary) return send({ type: 'error', message: 'input messages are JSON text' });
    if (!rate.take()) {
      if (!warned)
        send({ type: 'error', message: `input rate limit: at most ${INPUT_PER_SECOND} messages per second` });
      warned = true;
      return;
    }
    warned = false;
    const parsed = parseClientMessage(data.toString(), live.viewport);
    if (!parsed.ok) return send({ type: 'error', message: parsed.error });
    service.touch(live.id);
    const message = parsed.message;
    if (live.browser.replaying) return send({ type: 'error', message: liveReplayBusy });
    const failed = (error: unknown) =>
      send({ type: 'error', message: error instanceof Error ? error.message.split('\n')[0] : String(error) });
    if (message.type === 'replay') {
      // Refused at once if it cannot start; otherwise it holds the page from now on.
      queue = live.browser
        .replay(message, {
          after: queue,
          checkUrl: (url) => service.checkUrl(url),
          onStep: () => service.touch(live.id),
        })
        .catch(failed);
      return;
    }
    queue = queue.then(async () => {
      try {
        if (message.type === 'navigate') {
          const refused = await service.navigate(live.id, message.url);
          if (refused) send(refused);
        } else await live.browser.handle(message);
      } catch (error) {
        send({
          type: 'error',
          message: error instanceof Error ? error.message.split('\n')[0] : String(error),
        });
      }
    });
  });
  socket.on('close', () => {
    live.onEnd.delete(ended);
    live.browser.detach(listener);
  });
  live.browser.attach(listener).catch((error: unknown) => {
    send({ type: 'error', message: `could not stream the page: ${String(error)}` });
  });
}
