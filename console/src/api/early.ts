/**
 * Requests started by index.html's inline script before the app's bundle has loaded and
 * evaluated (the run page's session check and run): the first `request()` for the same call
 * takes the answer instead of asking again. Each one is used once; later calls fetch normally.
 */
type EarlyRequests = Record<string, Promise<Response> | undefined>;

declare global {
  interface Window {
    __stepdeckEarly?: EarlyRequests;
  }
}

/** The key index.html's script uses: method, path, project and branch. */
export const earlyKey = (method: string, url: string, projectId = '', branchId = '') =>
  `${method} ${url} ${projectId} ${branchId}`;

export function takeEarlyResponse(key: string): Promise<Response> | undefined {
  const early = typeof window === 'undefined' ? undefined : window.__stepdeckEarly;
  const response = early?.[key];
  if (early && response) delete early[key];
  return response;
}
