import { lazy, Suspense } from 'react';
import { createBrowserRouter } from 'react-router';
import { onUnauthorized } from './api/client.ts';
import { Layout } from './components/Layout.tsx';
import { RequireSession } from './components/RequireSession.tsx';
// Administration (console part 3)
import { ApiKeysPage } from './pages/admin/ApiKeys.tsx';
import { AuditLogPage } from './pages/admin/AuditLog.tsx';
import { OrganizationPage } from './pages/admin/Organization.tsx';
import { PresetsPage } from './pages/admin/Presets.tsx';
import { SchedulesPage } from './pages/admin/Schedules.tsx';
import { SecretsPage } from './pages/admin/Secrets.tsx';
import { TagsPage } from './pages/admin/Tags.tsx';
import { UsersPage } from './pages/admin/Users.tsx';
import { WebhooksPage } from './pages/admin/Webhooks.tsx';
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
            { path: 'admin/api-keys', element: <ApiKeysPage /> },
            { path: 'admin/presets', element: <PresetsPage /> },
            { path: 'admin/users', element: <UsersPage /> },
            { path: 'admin/audit-log', element: <AuditLogPage /> },
            { path: 'admin/secrets', element: <SecretsPage /> },
            { path: 'admin/tags', element: <TagsPage /> },
            { path: 'admin/organization', element: <OrganizationPage /> },
            { path: 'admin/webhooks', element: <WebhooksPage /> },
            { path: 'admin/schedules', element: <SchedulesPage /> },
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
