import { liveSessionResponse } from '@stepdeck/contract';
import { z } from 'zod';
import { request } from './client.ts';

const none = z.object({ data: z.null() });
const base = (projectId: string) => `/console/v1/projects/${projectId}/live-sessions`;

/** The signed-in user's live browser (one at a time): started, streamed over a WebSocket, closed. */
export const liveSessionsApi = {
  start: (projectId: string, body: { url: string; testId?: string }) =>
    request(base(projectId), liveSessionResponse, { method: 'POST', body }),
  end: (projectId: string, sessionId: string) =>
    request(`${base(projectId)}/${sessionId}`, none, { method: 'DELETE' }),
};

/** The stream's WebSocket URL, on the console's own origin (the service checks it). */
export const streamUrl = (path: string) =>
  `${window.location.protocol === 'https:' ? 'wss:' : 'ws:'}//${window.location.host}${path}`;
