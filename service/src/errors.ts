import { type ErrorCode, errorCatalogue, type MessageValues } from './errors/catalogue.ts';

export { type ErrorCode, errorCatalogue } from './errors/catalogue.ts';

interface Extras {
  /** Fields sent beside `message` and `code` (e.g. what still uses a resource). */
  body?: Record<string, unknown> | undefined;
  headers?: Record<string, string> | undefined;
}

/**
 * Domain errors. Services throw these; the one HTTP error handler turns them into
 * `{ message, code }` responses, so domain code never needs to know about Fastify.
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly statusCode: number;
  readonly body: Record<string, unknown> | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(code: ErrorCode, message: string, extras: Extras = {}) {
    super(message);
    this.code = code;
    this.statusCode = errorCatalogue[code].status;
    this.body = extras.body;
    this.headers = extras.headers;
  }

  /** The same error with fields sent beside `message`, or with response headers. */
  with(extras: Extras): AppError {
    return new AppError(this.code, this.message, {
      body: { ...this.body, ...extras.body },
      headers: { ...this.headers, ...extras.headers },
    });
  }

  /** The same error with a `Retry-After` header (whole seconds, at least 1). */
  retryAfter(seconds: number): AppError {
    return this.with({ headers: { 'retry-after': String(Math.max(1, Math.ceil(seconds))) } });
  }
}

/** The catalogue's error for `code`, its message filled with `values`. */
export function appError<C extends ErrorCode>(code: C, ...values: MessageValues<C>): AppError {
  const message: string | ((...values: never[]) => string) = errorCatalogue[code].message;
  return new AppError(
    code,
    typeof message === 'string' ? message : (message as (...v: unknown[]) => string)(...values),
  );
}
