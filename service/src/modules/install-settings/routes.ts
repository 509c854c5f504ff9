import { installSettingsBody, installSettingsResponse } from '@stepdeck/contract';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { session } from '../../plugins/auth/access.ts';
import { requireUser } from '../../plugins/auth/index.ts';
import type { InstallSettingsService } from './service.ts';

const tags = ['install'];
const installAdmin = { access: session('installAdmin') };

/** `/console/v1/install/settings`: install admins only (an organization's owner gets a 403). */
export async function installSettingsRoutes(parent: FastifyInstance, service: InstallSettingsService) {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/console/v1/install/settings',
    {
      config: installAdmin,
      schema: {
        summary: "Read the install's bounds and settings (an SMTP password is never returned)",
        response: { 200: installSettingsResponse },
        tags,
      },
    },
    async () => ({ data: await service.view() }),
  );
  app.put(
    '/console/v1/install/settings',
    {
      config: installAdmin,
      schema: {
        summary:
          'Change install settings: the private-target allow-list, runner egress rules, the alert SMTP relay',
        response: { 200: installSettingsResponse },
        tags,
        body: installSettingsBody,
      },
    },
    async (request) => {
      const user = requireUser(request);
      const { view, changed } = await service.update(request.body, user.email);
      request.auditDetail = changed.join('; ') || 'nothing changed';
      return { data: view };
    },
  );
}
