import { useQuery } from '@tanstack/react-query';
import { Navigate, useParams } from 'react-router';
import { api } from '../api/endpoints.ts';
import { ErrorMessage } from '../components/ErrorMessage.tsx';

/** `/console/` and `/console/projects/:id`: to the runs of the given (or first) project. */
export function HomeRedirect() {
  const { projectId } = useParams();
  const projects = useQuery({ queryKey: ['projects'], queryFn: api.projects, staleTime: 60_000 });
  if (projectId) return <Navigate to={`/projects/${projectId}/runs`} replace />;
  if (projects.error) return <ErrorMessage error={projects.error} />;
  if (!projects.data) return <p role="status">Loading…</p>;
  const first = projects.data.data[0];
  if (!first) return <p>No project yet.</p>;
  return <Navigate to={`/projects/${first.id}/runs`} replace />;
}
