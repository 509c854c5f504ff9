import {
  type AlertChannelCreate,
  type AlertChannelUpdate,
  alertChannelListResponse,
  alertChannelResponse,
  alertChannelTestResponse,
} from '@stepdeck/contract';
import { z } from 'zod';
import { request } from './client.ts';

const none = z.object({ data: z.null() });
const base = (projectId: string) => `/console/v1/projects/${projectId}/alert-channels`;

/** A project's alert channels (Slack, Microsoft Teams, email) for failed and recovered runs. */
export const alertsApi = {
  list: (projectId: string) => request(base(projectId), alertChannelListResponse),
  create: (projectId: string, body: AlertChannelCreate) =>
    request(base(projectId), alertChannelResponse, { method: 'POST', body }),
  update: (projectId: string, channelId: string, body: AlertChannelUpdate) =>
    request(`${base(projectId)}/${channelId}`, alertChannelResponse, { method: 'PUT', body }),
  remove: (projectId: string, channelId: string) =>
    request(`${base(projectId)}/${channelId}`, none, { method: 'DELETE' }),
  sendTest: (projectId: string, channelId: string) =>
    request(`${base(projectId)}/${channelId}/test`, alertChannelTestResponse, { method: 'POST' }),
};

export const alertsKey = (projectId: string) => ['alert-channels', projectId] as const;
