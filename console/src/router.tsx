import type { ComponentType } from 'react';
import { createBrowserRouter, type RouteObject } from 'react-router';
import { onUnauthorized } from './api/client.ts';
import { Layout } from './components/Layout.tsx';
import { NotFoundPage } from './components/NotFound.tsx';
import { RequireSession } from './components/RequireSession.tsx';
import { HomeRedirect } from './pages/HomeRedirect.tsx';
import { RouteError } from './pages/RouteError.tsx';
import { RunPage } from './pages/RunPage.tsx';
import { RunsListPage } from './pages/RunsList.tsx';
import { SignInPage } from './pages/SignIn.tsx';

/**
 * A page loaded when its route is first opened. The router loads it before rendering the route
 * (route `lazy`), so the page never suspends: no Suspense fallback flashes, and React does not
 * hold the page back to pace a fallback's reveal (which cost the tests tree 150 ms on a cold
 * load). Until the first page is in, the root's hydrate fallback shows.
 */
function page(load: () => Promise<ComponentType>): Pick<RouteObject, 'lazy'> {
  return { lazy: async () => ({ Component: await load() }) };
}

// The dashboard brings the chart library: loaded only when opened.
const dashboardPage = page(() => import('./pages/Dashboard.tsx').then((module) => module.default));
// Authoring: the tests tree and the test editor, loaded when opened.
const testsPage = page(() => import('./pages/tests/TestsPage.tsx').then((module) => module.TestsPage));
const testEditorPage = page(() =>
  import('./pages/editor/TestEditorPage.tsx').then((module) => module.TestEditorPage),
);
// Administration: each page loaded when opened, off the
// run page's first paint.
// The account menu's own page (every role changes their own password).
// The CI setup of a project, test or directory.
const ciSetupPage = page(() => import('./pages/CiSetup.tsx').then((module) => module.CiSetupPage));
// A run's visual review and the install administration (install admins only).
const visualReviewPage = page(() =>
  import('./pages/visual/VisualReview.tsx').then((module) => module.VisualReviewPage),
);
const installPage = page(() =>
  import('./pages/install/InstallPage.tsx').then((module) => module.InstallPage),
);
// A test's results across runs, and the project's quarantine.
const testHistoryPage = page(() =>
  import('./pages/history/TestHistory.tsx').then((module) => module.TestHistoryPage),
);
const quarantinePage = page(() =>
  import('./pages/history/Quarantine.tsx').then((module) => module.QuarantinePage),
);
const accountPasswordPage = page(() =>
  import('./pages/AccountPassword.tsx').then((module) => module.AccountPasswordPage),
);
const adminPages = {
  'admin/api-keys': page(() => import('./pages/admin/ApiKeys.tsx').then((module) => module.ApiKeysPage)),
  'admin/presets': page(() => import('./pages/admin/Presets.tsx').then((module) => module.PresetsPage)),
  'admin/environments': page(() =>
    import('./pages/admin/Environments.tsx').then((module) => module.EnvironmentsPage),
  ),
  'admin/users': page(() => import('./pages/admin/Users.tsx').then((module) => module.UsersPage)),
  'admin/audit-log': page(() => import('./pages/admin/AuditLog.tsx').then((module) => module.AuditLogPage)),
  'admin/secrets': page(() => import('./pages/admin/Secrets.tsx').then((module) => module.SecretsPage)),
  'admin/tags': page(() => import('./pages/admin/Tags.tsx').then((module) => module.TagsPage)),
  'admin/organization': page(() =>
    import('./pages/admin/Organization.tsx').then((module) => module.OrganizationPage),
  ),
  'admin/webhooks': page(() => import('./pages/admin/Webhooks.tsx').then((module) => module.WebhooksPage)),
  'admin/alerts': page(() =>
    import('./pages/admin/AlertChannels.tsx').then((module) => module.AlertChannelsPage),
  ),
  'admin/schedules': page(() => import('./pages/admin/Schedules.tsx').then((module) => module.SchedulesPage)),
  'admin/email-inboxes': page(() =>
    import('./pages/admin/EmailInboxes.tsx').then((module) => module.EmailInboxesPage),
  ),
  'admin/projects': page(() => import('./pages/admin/Projects.tsx').then((module) => module.ProjectsPage)),
} satisfies Record<string, Pick<RouteObject, 'lazy'>>;

export const router = createBrowserRouter(
  [
    { path: '/sign-in', element: <SignInPage /> },
    {
      element: <RequireSession />,
      hydrateFallbackElement: <p role="status">Loading…</p>,
      children: [
        { index: true, element: <HomeRedirect /> },
        {
          path: '/projects/:projectId',
          element: <Layout />,
          children: [
            {
              // A page that cannot render (its code did not load) keeps the header around it.
              errorElement: <RouteError />,
              children: [
                { index: true, element: <HomeRedirect /> },
                { path: 'runs', element: <RunsListPage /> },
                { path: 'runs/:runId', element: <RunPage /> },
                { path: 'runs/:runId/visual', ...visualReviewPage },
                { path: 'install', ...installPage },
                { path: 'dashboard', ...dashboardPage },
                ...Object.entries(adminPages).map(([path, route]) => ({ path, ...route })),
                { path: 'account/password', ...accountPasswordPage },
                { path: 'ci-setup', ...ciSetupPage },
                // Authoring
                { path: 'tests', ...testsPage },
                { path: 'tests/:testId', ...testEditorPage },
                { path: 'tests/:testId/history', ...testHistoryPage },
                { path: 'quarantine', ...quarantinePage },
                { path: '*', element: <NotFoundPage /> },
              ],
            },
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
