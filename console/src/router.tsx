import { lazy, type ReactNode, Suspense } from 'react';
import { createBrowserRouter } from 'react-router';
import { onUnauthorized } from './api/client.ts';
import { Layout } from './components/Layout.tsx';
import { RequireSession } from './components/RequireSession.tsx';
import { HomeRedirect } from './pages/HomeRedirect.tsx';
import { NotFoundPage } from './pages/NotFound.tsx';
import { RunPage } from './pages/RunPage.tsx';
import { RunsListPage } from './pages/RunsList.tsx';
import { SignInPage } from './pages/SignIn.tsx';

// The dashboard brings the chart library: loaded only when opened.
const DashboardPage = lazy(() => import('./pages/Dashboard.tsx'));
// Authoring (issue 14): the tests tree and the test editor, loaded when opened.
const TestsPage = lazy(() => import('./pages/tests/TestsPage.tsx'));
const TestEditorPage = lazy(() => import('./pages/editor/TestEditorPage.tsx'));

// Administration (console part 3): each page loaded when opened, off the run page's first paint.
const ApiKeysPage = lazy(() =>
  import('./pages/admin/ApiKeys.tsx').then((page) => ({ default: page.ApiKeysPage })),
);
const AuditLogPage = lazy(() =>
  import('./pages/admin/AuditLog.tsx').then((page) => ({ default: page.AuditLogPage })),
);
const OrganizationPage = lazy(() =>
  import('./pages/admin/Organization.tsx').then((page) => ({ default: page.OrganizationPage })),
);
const PresetsPage = lazy(() =>
  import('./pages/admin/Presets.tsx').then((page) => ({ default: page.PresetsPage })),
);
const SchedulesPage = lazy(() =>
  import('./pages/admin/Schedules.tsx').then((page) => ({ default: page.SchedulesPage })),
);
const SecretsPage = lazy(() =>
  import('./pages/admin/Secrets.tsx').then((page) => ({ default: page.SecretsPage })),
);
const TagsPage = lazy(() => import('./pages/admin/Tags.tsx').then((page) => ({ default: page.TagsPage })));
const UsersPage = lazy(() => import('./pages/admin/Users.tsx').then((page) => ({ default: page.UsersPage })));
const WebhooksPage = lazy(() =>
  import('./pages/admin/Webhooks.tsx').then((page) => ({ default: page.WebhooksPage })),
);
// Administration, second pass: inbox viewer, projects and branches.
const EmailInboxesPage = lazy(() =>
  import('./pages/admin/EmailInboxes.tsx').then((page) => ({ default: page.EmailInboxesPage })),
);
const ProjectsPage = lazy(() =>
  import('./pages/admin/Projects.tsx').then((page) => ({ default: page.ProjectsPage })),
);
const adminPage = (page: ReactNode) => <Suspense fallback={<p role="status">Loading…</p>}>{page}</Suspense>;

export const router = createBrowserRouter(
  [
    { path: '/sign-in', element: <SignInPage /> },
    {
      element: <RequireSession />,
      children: [
        { index: true, element: <HomeRedirect /> },
        {
          path: '/projects/:projectId',
          element: <Layout />,
          children: [
            { index: true, element: <HomeRedirect /> },
            { path: 'runs', element: <RunsListPage /> },
            { path: 'runs/:runId', element: <RunPage /> },
            {
              path: 'dashboard',
              element: (
                <Suspense fallback={<p role="status">Loading dashboard…</p>}>
                  <DashboardPage />
                </Suspense>
              ),
            },
            // Administration (console part 3)
            { path: 'admin/api-keys', element: adminPage(<ApiKeysPage />) },
            { path: 'admin/presets', element: adminPage(<PresetsPage />) },
            { path: 'admin/users', element: adminPage(<UsersPage />) },
            { path: 'admin/audit-log', element: adminPage(<AuditLogPage />) },
            { path: 'admin/secrets', element: adminPage(<SecretsPage />) },
            { path: 'admin/tags', element: adminPage(<TagsPage />) },
            { path: 'admin/organization', element: adminPage(<OrganizationPage />) },
            { path: 'admin/webhooks', element: adminPage(<WebhooksPage />) },
            { path: 'admin/schedules', element: adminPage(<SchedulesPage />) },
            // Administration, second pass
            { path: 'admin/email-inboxes', element: adminPage(<EmailInboxesPage />) },
            { path: 'admin/projects', element: adminPage(<ProjectsPage />) },
            // Authoring (issue 14)
            {
              path: 'tests',
              element: (
                <Suspense fallback={<p role="status">Loading tests…</p>}>
                  <TestsPage />
                </Suspense>
              ),
            },
            {
              path: 'tests/:testId',
              element: (
                <Suspense fallback={<p role="status">Loading editor…</p>}>
                  <TestEditorPage />
                </Suspense>
              ),
            },
            { path: '*', element: <NotFoundPage /> },
          ],
        },
      ],
    },
    {
      path: '*',
      element: (
        <main>
          <NotFoundPage />
        </main>
      ),
    },
  ],
  { basename: '/console' },
);

/** The page to come back to after signing in: where the user was, inside the console. */
export function signInPath(): string {
  const { search } = router.state.location;
  // The router's own state keeps the basename; navigate() adds it again.
  const pathname = router.state.location.pathname.replace(/^\/console(?=\/|$)/, '') || '/';
  if (pathname.startsWith('/sign-in')) return '/sign-in';
  return `/sign-in?next=${encodeURIComponent(pathname + search)}`;
}

onUnauthorized(() => {
  // Already on the sign-in page (another request noticed first): keep its `next`.
  if (signInPath() === '/sign-in') return;
  void router.navigate(signInPath(), { replace: true });
});
