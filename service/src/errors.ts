/**
 * Domain errors. Services throw these; the one HTTP error handler turns them into
 * `{ message }` responses, so domain code never needs to know about Fastify.
 */
export class AppError extends Error {
  readonly statusCode: number;
  readonly body: Record<string, unknown> | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(
    statusCode: number,
    message: string,
    options: { body?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.statusCode = statusCode;
    this.body = options.body;
    this.headers = options.headers;
  }
}

export const badRequest = (message: string, body?: Record<string, unknown>) =>
  new AppError(400, message, { body });
export const unauthorized = () => new AppError(401, 'Invalid API key');
export const forbidden = (message = '') => new AppError(403, message);
export const licenseRequired = () => new AppError(403, 'LICENSE_REQUIRED');
export const notFound = (message: string) => new AppError(404, message);
export const conflict = (message: string, body?: Record<string, unknown>) =>
  new AppError(409, message, { body });
export const tooManyRequests = (message: string, retryAfterSeconds: number) =>
  new AppError(429, message, {
    headers: { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
  });
