import {
  auditLogResponse,
  type InstallAuditLogQuery,
  type InstallSettingsBody,
  installAdminResponse,
  installAdminsResponse,
  installOrganizationResponse,
  installOrganizationsResponse,
  installSettingsResponse,
  type LimitsBody,
  organizationLimitsResponse,
  subscriptionResponse,
} from '@stepdeck/contract';
import { z } from 'zod';
import { request } from './client.ts';

const none = z.object({ data: z.null() });

/** The install administration (`/console/v1/install/...`, install admins only). */
export const installApi = {
  settings: () => request('/console/v1/install/settings', installSettingsResponse),
  saveSettings: (body: InstallSettingsBody) =>
    request('/console/v1/install/settings', installSettingsResponse, { method: 'PUT', body }),
  organizations: () => request('/console/v1/install/organizations', installOrganizationsResponse),
  setSubscription: (id: string, active: boolean) =>
    request(`/console/v1/install/organizations/${id}/subscription`, subscriptionResponse, {
      method: 'PUT',
      body: { active },
    }),
  setConcurrencyCap: (id: string, concurrencyCap: number) =>
    request(`/console/v1/install/organizations/${id}/limits`, organizationLimitsResponse, {
      method: 'PUT',
      body: { concurrencyCap },
    }),
  /** Only the fields given change; a quota of null goes back to the install's default. */
  setLimits: (id: string, body: LimitsBody) =>
    request(`/console/v1/install/organizations/${id}/limits`, organizationLimitsResponse, {
      method: 'PUT',
      body,
    }),
  setSuspended: (id: string, suspended: boolean) =>
    request(`/console/v1/install/organizations/${id}/suspension`, installOrganizationResponse, {
      method: 'PUT',
      body: { suspended },
    }),
  deleteOrganization: (id: string) =>
    request(`/console/v1/install/organizations/${id}`, installOrganizationResponse, { method: 'DELETE' }),
  admins: () => request('/console/v1/install/admins', installAdminsResponse),
  grantAdmin: (email: string) =>
    request('/console/v1/install/admins', installAdminResponse, { method: 'POST', body: { email } }),
  revokeAdmin: (userId: string) =>
    request(`/console/v1/install/admins/${userId}`, none, { method: 'DELETE' }),
  auditLog: (query: InstallAuditLogQuery) =>
    request('/console/v1/install/audit-log', auditLogResponse, {
      query: query as Record<string, string | number | undefined>,
    }),
};
