/**
 * What a changing request acted on, read from its route pattern: `/console/v1/webhooks/:id/
 * rotate-secret` acted on `webhooks` `:id`; a create (`POST /console/v1/api-keys`, `POST
 * /console/v1/projects/:projectId/presets`) on the collection it names, its id taken from the
 * created record.
 */
export function auditResource(
  method: string,
  route: string,
  params: Record<string, string | undefined>,
  createdId: string | undefined,
): { type: string; id: string | null } {
  const segments = route
    .replace(/^\/(console\/)?v1\//, '')
    .split('/')
    .filter(Boolean);
  const last = segments.at(-1) ?? '';
  if (method === 'POST' && createdId !== undefined && !last.startsWith(':') && segments.length % 2 === 1) {
    return { type: last, id: createdId };
  }
  for (let index = segments.length - 1; index > 0; index--) {
    const segment = segments[index] as string;
    const before = segments[index - 1] as string;
    if (segment.startsWith(':') && !before.startsWith(':')) {
      return { type: before, id: params[segment.slice(1)] ?? null };
    }
  }
  return { type: segments[0] ?? route, id: createdId ?? null };
}

/** Changing requests that change nothing, or that carry a password (sign-in). */
const notAudited = new Set([
  'POST /console/v1/session',
  'DELETE /console/v1/session',
  'POST /console/v1/sso/sign-out',
  'POST /v1/tests/export',
]);

export const isAudited = (method: string, route: string) =>
  method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS' && !notAudited.has(`${method} ${route}`);
