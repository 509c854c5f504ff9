import { type SsoProviderBody, ssoProviderResponse, ssoSignOutResponse } from '@stepdeck/contract';
import { z } from 'zod';
import { request } from './client.ts';

const none = z.object({ data: z.null() });

/** Single sign-on: organizations' providers (install admins) and the sign-out that ends the provider's session too. */
export const ssoApi = {
  provider: (organizationId: string) =>
    request(`/console/v1/install/organizations/${organizationId}/sso`, ssoProviderResponse),
  saveProvider: (organizationId: string, body: SsoProviderBody) =>
    request(`/console/v1/install/organizations/${organizationId}/sso`, ssoProviderResponse, {
      method: 'PUT',
      body,
    }),
  removeProvider: (organizationId: string) =>
    request(`/console/v1/install/organizations/${organizationId}/sso`, none, { method: 'DELETE' }),
  signOut: () => request('/console/v1/sso/sign-out', ssoSignOutResponse, { method: 'POST' }),
};

/** Where the sign-in page's single sign-on form leads (a navigation: the provider's page follows). */
export const ssoStartPath = '/console/v1/sso/start';
