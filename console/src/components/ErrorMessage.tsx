import { ApiError } from '../api/client.ts';

/** An API error as the service worded it. */
export function ErrorMessage({ error, title = 'Something went wrong' }: { error: unknown; title?: string }) {
  const message = error instanceof Error ? error.message : String(error);
  const status = error instanceof ApiError ? ` (${error.status})` : '';
  return (
    <div role="alert" className="error-box">
      <strong>
        {title}
        {status}
      </strong>
      <p>{message}</p>
    </div>
  );
}
