import type { z } from 'zod';
import { earlyKey, takeEarlyResponse } from './early.ts';

/** An API answer other than 2xx, with the service's own message. */
export class ApiError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
    this.name = 'ApiError';
  }
}

/** The header every console request carries; the service refuses cookie-authenticated changes without it. */
export const csrfHeader = 'x-stepdeck-csrf';

/** Which project (and branch, when not the default) a `/v1` call acts on. */
export interface ProjectScope {
  projectId: string;
  branchId?: string | undefined;
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  body?: unknown;
  scope?: ProjectScope | undefined;
  query?: Record<string, string | number | undefined>;
  signal?: AbortSignal | undefined;
}

let unauthorizedListener: (() => void) | undefined;
/** Called on any 401: the session is gone, so the app sends the user to sign in. */
export function onUnauthorized(listener: () => void) {
  unauthorizedListener = listener;
}

export function buildUrl(path: string, query?: RequestOptions['query']): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== '') params.set(key, String(value));
  }
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}

/** Calls the service with the session cookie and parses the answer with the contract's schema. */
export async function request<T extends z.ZodType>(
  path: string,
  schema: T,
  options: RequestOptions = {},
): Promise<z.infer<T>> {
  const headers: Record<string, string> = { [csrfHeader]: '1', accept: 'application/json' };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.scope) {
    headers['x-project-id'] = options.scope.projectId;
    if (options.scope.branchId) headers['x-branch-id'] = options.scope.branchId;
  }
  const url = buildUrl(path, options.query);
  const method = options.method ?? 'GET';
  const early =
    method === 'GET'
      ? takeEarlyResponse(earlyKey(method, url, options.scope?.projectId, options.scope?.branchId))
      : undefined;
  const response = await (early ??
    fetch(url, {
      method,
      headers,
      credentials: 'same-origin',
      body: options.body === undefined ? null : JSON.stringify(options.body),
      signal: options.signal ?? null,
    }));
  const text = await response.text();
  const json = text ? safeJson(text) : undefined;
  if (!response.ok) {
    if (response.status === 401 && !path.endsWith('/console/v1/session')) unauthorizedListener?.();
    throw new ApiError(response.status, messageOf(json) ?? `${response.status} ${response.statusText}`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new ApiError(502, `Unexpected answer from ${path}: ${parsed.error.message}`);
  return parsed.data;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function messageOf(json: unknown): string | undefined {
  if (json && typeof json === 'object') {
    const body = json as { message?: unknown; error?: unknown };
    if (typeof body.message === 'string' && body.message) return body.message;
    if (typeof body.error === 'string' && body.error) return body.error;
  }
  return undefined;
}
