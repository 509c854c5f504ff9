import type { AddressInfo } from 'node:net';
import websocket from '@fastify/websocket';
import fp from 'fastify-plugin';
import type { ModuleOptions } from '../index.ts';
import { liveSessionRoutes } from './routes.ts';
import { LiveSessionsService } from './service.ts';

/**
 * Live sessions: a headless Chromium per console user, under the runner's isolation and egress
 * rules, streamed to the console over a WebSocket, with an element picker and Playwright's
 * recorder (recorder.ts). In memory: a session is a browser process of this process and ends
 * with it.
 */
export const liveSessionsPlugin = fp<ModuleOptions>(
  async (app, { ctx }) => {
    const service = new LiveSessionsService(ctx, () => {
      const address = app.server.address() as AddressInfo | string | null;
      return address && typeof address === 'object' ? [{ port: address.port, name: 'HTTP' }] : [];
    });
    // Input messages are small; a `replay` carries up to 500 steps of a test.
    await app.register(websocket, { options: { maxPayload: 512 * 1024 } });
    await liveSessionRoutes(app, service);
    // Signing out ends the user's live browser with the console session.
    app.addHook('onResponse', async (request, reply) => {
      if (request.method !== 'DELETE' || request.routeOptions.url !== '/console/v1/session') return;
      if (reply.statusCode !== 200 || request.principal?.kind !== 'user') return;
      await service.endAllOf(request.principal.userId);
    });
    app.addHook('onClose', async () => service.stop());
  },
  { name: 'live-sessions', dependencies: ['accounts', 'install-settings'] },
);
