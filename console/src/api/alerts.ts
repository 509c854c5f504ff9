import {
  type AlertChannelCreate,
  type AlertChannelUpdate,
  alertChannelListResponse,
  alertChannelResponse,
  alertChannelTestResponse,
  alertDeliveryListResponse,
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
  /** The channel's latest deliveries (newest first): status, attempts, last error. */
  deliveries: (projectId: string, channelId: string) =>
    request(`${base(projectId)}/${channelId}/deliveries`, alertDeliveryListResponse),
};

export const alertsKey = (projectId: string) => ['alert-channels', projectId] as const;
export const alertDeliveriesKey = (projectId: string, channelId: string) =>
  ['alert-channels', projectId, channelId, 'deliveries'] as const;
