import { useQuery } from '@tanstack/react-query';
import { Navigate, Outlet, useLocation } from 'react-router';
import { ApiError } from '../api/client.ts';
import { api, sessionKey } from '../api/endpoints.ts';
import { ErrorMessage } from './ErrorMessage.tsx';

/** Shows its pages only to a signed-in user; anyone else goes to sign-in and comes back after. */
export function RequireSession() {
  const location = useLocation();
  const session = useQuery({ queryKey: sessionKey, queryFn: api.session, staleTime: 60_000 });
  if (session.isPending) return <p role="status">Loading…</p>;
  if (session.error instanceof ApiError && session.error.status === 401) {
    const next = encodeURIComponent(location.pathname + location.search);
    return <Navigate to={`/sign-in?next=${next}`} replace />;
  }
  if (session.error) return <ErrorMessage error={session.error} />;
  return <Outlet />;
}
