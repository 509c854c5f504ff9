// The header's rules come before its menus' own (AccountMenu.css overrides `.topbar > *`).
import './Layout.css';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { NavLink, Outlet, useNavigate, useNavigation, useParams, useSearchParams } from 'react-router';
import { api, sessionKey } from '../api/endpoints.ts';
import { ssoApi } from '../api/sso.ts';
import { useProjectScope } from '../lib/scope.ts';
import { AccountMenu } from './AccountMenu.tsx';
import { type AdminLink, AdminMenu } from './AdminMenu.tsx';
import { NotFoundPage } from './NotFound.tsx';

/** The administration pages, grouped under one menu (add a page: one line here). */
const adminLinks: readonly AdminLink[] = [
  { path: 'api-keys', label: 'API keys' },
  { path: 'webhooks', label: 'Webhooks' },
  { path: 'alerts', label: 'Alerts' },
  { path: 'schedules', label: 'Schedules' },
  { path: 'presets', label: 'Presets' },
  { path: 'environments', label: 'Environments' },
  { path: 'users', label: 'Users' },
  { path: 'audit-log', label: 'Audit log' },
  { path: 'secrets', label: 'Secrets' },
  { path: 'tags', label: 'Tags' },
  { path: 'organization', label: 'Organization' },
  { path: 'email-inboxes', label: 'Email inboxes' },
  { path: 'projects', label: 'Projects' },
];

/** Header with the organization, project and branch switchers, navigation and sign-out. */
export function Layout() {
  const navigate = useNavigate();
  // A page opened for the first time loads its code before it shows (route `lazy`).
  const openingPage = useNavigation().state === 'loading';
  const queryClient = useQueryClient();
  const { projectId } = useParams();
  const [search] = useSearchParams();
  const scope = useProjectScope();
  const session = useQuery({ queryKey: sessionKey, queryFn: api.session, staleTime: 60_000 });
  const organization = useQuery({
    queryKey: ['organization'],
    queryFn: api.organization,
    staleTime: 300_000,
  });
  const projects = useQuery({ queryKey: ['projects'], queryFn: api.projects, staleTime: 60_000 });
  // A project id the organization does not have (a stale or mistyped link): the page under it
  // would only show its own 404s, and the switchers a project that is not the one asked for.
  const unknownProject =
    projects.isSuccess && !projects.data.data.some((project) => project.id === projectId);
  const branches = useQuery({
    queryKey: ['branches', projectId],
    queryFn: () => api.branches(projectId as string),
    enabled: Boolean(projectId) && !unknownProject,
    staleTime: 60_000,
  });
  const defaultBranch = branches.data?.data.find((branch) => branch.isDefault);
  const signOut = async () => {
    // Also tells where to end the identity provider's session, for people who came through one.
    const ended = await ssoApi.signOut().catch(() => undefined);
    queryClient.clear();
    const endSessionUrl = ended?.data.endSessionUrl;
    if (endSessionUrl) window.location.assign(endSessionUrl);
    else void navigate('/sign-in', { replace: true });
  };
  const switchBranch = (branchId: string) => {
    const next = new URLSearchParams(search);
    if (branchId === defaultBranch?.id) next.delete('branch');
    else next.set('branch', branchId);
    next.delete('page');
    void navigate({ search: next.toString() });
  };
  return (
    <>
      {/* The first stop of the keyboard: past the header's dozen controls to the page (the
          browser focuses <main>, which takes focus by script only: tabIndex -1). */}
      <a className="skip-link" href="#main">
        Skip to main content
      </a>
      <header className="topbar">
        <span className="brand">Stepdeck</span>
        <span
          className="org"
          title={organization.data ? `Organization: ${organization.data.data.name}` : 'Organization'}
        >
          {organization.data?.data.name ?? (organization.error ? 'Organization unavailable' : '…')}
        </span>
        <label>
          Project{' '}
          <select
            value={unknownProject ? '' : projectId}
            onChange={(event) => void navigate(`/projects/${event.target.value}/runs`)}
          >
            {unknownProject ? (
              <option value="" disabled>
                Choose a project
              </option>
            ) : null}
            {(projects.data?.data ?? []).map((project) => (
              <option key={project.id} value={project.id}>
                {project.name}
              </option>
            ))}
          </select>
        </label>
        <label hidden={unknownProject}>
          Branch{' '}
          <select
            value={scope.branchId ?? defaultBranch?.id ?? ''}
            onChange={(event) => switchBranch(event.target.value)}
          >
            {(branches.data?.data ?? []).map((branch) => (
              <option key={branch.id} value={branch.id}>
                {branch.name}
              </option>
            ))}
          </select>
        </label>
        <nav aria-label="Main">
          <NavLink to={`/projects/${projectId}/runs${scope.branchQuery}`} end>
            Runs
          </NavLink>
          <NavLink to={`/projects/${projectId}/dashboard${scope.branchQuery}`}>Dashboard</NavLink>
          <NavLink to={`/projects/${projectId}/tests${scope.branchQuery}`}>Tests</NavLink>
          <AdminMenu projectId={projectId as string} links={adminLinks} />
          {session.data?.data.installAdmin ? (
            <NavLink to={`/projects/${projectId}/install`}>Install</NavLink>
          ) : null}
        </nav>
        <AccountMenu
          email={session.data?.data.email}
          role={session.data?.data.role}
          organization={organization.data?.data.name}
          passwordPath={`/projects/${projectId}/account/password`}
          onSignOut={() => void signOut()}
        />
      </header>
      {openingPage ? <div className="page-loading" role="progressbar" aria-label="Opening the page" /> : null}
      <main id="main" tabIndex={-1} aria-busy={openingPage || undefined}>
        {unknownProject ? <NotFoundPage what="Project" /> : <Outlet />}
      </main>
    </>
  );
}
