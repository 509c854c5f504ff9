import {
  createdOrganizationResponse,
  installAdminGrantBody,
  installAdminResponse,
  installAdminsResponse,
  installOrganizationCreateBody,
  installOrganizationResponse,
  installOrganizationsResponse,
  limitsBody,
  noPayloadResponse,
  organizationLimitsResponse,
  subscriptionBody,
  subscriptionResponse,
  suspensionBody,
  uuid,
} from '@stepdeck/contract';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { session } from '../../plugins/auth/access.ts';
import { requireUser } from '../../plugins/auth/index.ts';
import type { InstallService } from './install-service.ts';

const tags = ['install'];
const organizationParams = z.object({ id: uuid });
const adminParams = z.object({ userId: uuid });
const installAdmin = { access: session('installAdmin') };

/**
 * `/console/v1/install/...`: the install administration. Every route needs an install admin
 * (an organization's owner is refused with a 403 naming who can). The install's settings are
 * the install-settings module's.
 */
export async function installRoutes(parent: FastifyInstance, install: InstallService): Promise<void> {
  const app = parent.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/console/v1/install/organizations',
    {
      config: installAdmin,
      schema: { summary: 'List organizations', response: { 200: installOrganizationsResponse }, tags },
    },
    async () => ({ data: await install.organizations() }),
  );
  app.post(
    '/console/v1/install/organizations',
    {
      config: installAdmin,
      schema: {
        summary: 'Create an organization with its owner (its cap: the runner slots)',
        response: { 201: createdOrganizationResponse },
        tags,
        body: installOrganizationCreateBody,
      },
    },
    async (request, reply) => reply.code(201).send({ data: await install.createOrganization(request.body) }),
  );
  app.get(
    '/console/v1/install/organizations/:id',
    {
      config: installAdmin,
      schema: {
        summary: 'Read an organization',
        response: { 200: installOrganizationResponse },
        tags,
        params: organizationParams,
      },
    },
    async (request) => ({ data: await install.organization(request.params.id) }),
  );
  app.put(
    '/console/v1/install/organizations/:id/suspension',
    {
      config: installAdmin,
      schema: {
        summary: 'Suspend an organization, or lift its suspension (which also cancels a deletion)',
        response: { 200: installOrganizationResponse },
        tags,
        params: organizationParams,
        body: suspensionBody,
      },
    },
    async (request) => ({ data: await install.setSuspended(request.params.id, request.body.suspended) }),
  );
  app.delete(
    '/console/v1/install/organizations/:id',
    {
      config: installAdmin,
      schema: {
        summary: 'Delete an organization: suspended now, purged after the grace period unless restored',
        response: { 200: installOrganizationResponse },
        tags,
        params: organizationParams,
      },
    },
    async (request) => ({ data: await install.scheduleDeletion(request.params.id) }),
  );
  app.put(
    '/console/v1/install/organizations/:id/subscription',
    {
      config: installAdmin,
      schema: {
        summary: "Set an organization's subscription",
        response: { 200: subscriptionResponse },
        tags,
        params: organizationParams,
        body: subscriptionBody,
      },
    },
    async (request) => ({ data: await install.setSubscription(request.params.id, request.body.active) }),
  );
  app.put(
    '/console/v1/install/organizations/:id/limits',
    {
      config: installAdmin,
      schema: {
        summary:
          "Set an organization's limits: concurrency cap (at most the runner slots), artifact quota, inbox limit",
        response: { 200: organizationLimitsResponse },
        tags,
        params: organizationParams,
        body: limitsBody,
      },
    },
    async (request) => {
      const { limits, detail } = await install.setLimits(request.params.id, request.body);
      request.auditDetail = detail;
      return { data: limits };
    },
  );

  app.get(
    '/console/v1/install/admins',
    {
      config: installAdmin,
      schema: { summary: 'List install admins', response: { 200: installAdminsResponse }, tags },
    },
    async () => ({ data: await install.admins() }),
  );
  app.post(
    '/console/v1/install/admins',
    {
      config: installAdmin,
      schema: {
        summary: 'Make an existing user an install admin',
        response: { 200: installAdminResponse },
        tags,
        body: installAdminGrantBody,
      },
    },
    async (request) => ({ data: await install.grantAdmin(requireUser(request), request.body.email) }),
  );
  app.delete(
    '/console/v1/install/admins/:userId',
    {
      config: installAdmin,
      schema: {
        summary: 'Take the install-admin role from a user (never the last one)',
        response: { 200: noPayloadResponse },
        tags,
        params: adminParams,
      },
    },
    async (request) => {
      await install.revokeAdmin(request.params.userId);
      return { data: null };
    },
  );
}
