import type { z } from 'zod';
import { ApiError, csrfHeader, type ProjectScope } from './client.ts';

/**
 * The calls `request` (JSON in, JSON out) cannot make: multipart uploads (files with a test's
 * save, an import ZIP) and binary downloads (the export ZIP). Same session, CSRF and scope headers.
 */
function headersOf(scope: ProjectScope | undefined, extra: Record<string, string> = {}) {
  const headers: Record<string, string> = { [csrfHeader]: '1', ...extra };
  if (scope) {
    headers['x-project-id'] = scope.projectId;
    if (scope.branchId) headers['x-branch-id'] = scope.branchId;
  }
  return headers;
}

async function failure(response: Response): Promise<ApiError> {
  const text = await response.text();
  let message = `${response.status} ${response.statusText}`;
  try {
    const json = JSON.parse(text) as { message?: unknown; error?: unknown };
    if (typeof json.message === 'string' && json.message) message = json.message;
    else if (typeof json.error === 'string' && json.error) message = json.error;
  } catch {
    // Not JSON: the status line says enough.
  }
  return new ApiError(response.status, message);
}

/** Sends a multipart form and parses the JSON answer with the contract's schema. */
export async function sendForm<T extends z.ZodType>(
  path: string,
  schema: T,
  options: { scope: ProjectScope; method: 'POST' | 'PUT'; form: FormData },
): Promise<z.infer<T>> {
  const response = await fetch(path, {
    method: options.method,
    headers: headersOf(options.scope, { accept: 'application/json' }),
    credentials: 'same-origin',
    body: options.form,
  });
  if (!response.ok) throw await failure(response);
  const parsed = schema.safeParse(await response.json());
  if (!parsed.success) throw new ApiError(502, `Unexpected answer from ${path}: ${parsed.error.message}`);
  return parsed.data;
}

/** POSTs JSON and hands the binary answer to the browser as a download named by the service. */
export async function downloadFrom(path: string, options: { scope: ProjectScope; body: unknown }) {
  const response = await fetch(path, {
    method: 'POST',
    headers: headersOf(options.scope, { 'content-type': 'application/json' }),
    credentials: 'same-origin',
    body: JSON.stringify(options.body),
  });
  if (!response.ok) throw await failure(response);
  const disposition = response.headers.get('content-disposition') ?? '';
  const filename = /filename="?([^";]+)"?/.exec(disposition)?.[1] ?? 'export.zip';
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  // Revoked later: the browser reads the URL after the click returns.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  return filename;
}

/** An API refusal whose body says more than its message (e.g. the users of a shared step). */
export class ApiErrorWithBody extends ApiError {
  readonly body: unknown;
  constructor(status: number, message: string, body: unknown) {
    super(status, message);
    this.body = body;
  }
}

/** A DELETE whose refusal keeps its whole JSON body for the caller to read with a contract schema. */
export async function deleteKeepingErrorBody<T extends z.ZodType>(
  path: string,
  schema: T,
  scope: ProjectScope,
): Promise<z.infer<T>> {
  const response = await fetch(path, {
    method: 'DELETE',
    headers: headersOf(scope, { accept: 'application/json' }),
    credentials: 'same-origin',
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (!response.ok) {
    const message =
      json && typeof json === 'object' && typeof (json as { message?: unknown }).message === 'string'
        ? (json as { message: string }).message
        : `${response.status} ${response.statusText}`;
    throw new ApiErrorWithBody(response.status, message, json);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new ApiError(502, `Unexpected answer from ${path}: ${parsed.error.message}`);
  return parsed.data;
}
