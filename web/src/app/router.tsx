import {
  createRootRoute,
  createRoute,
  createRouter,
  lazyRouteComponent as lazy,
  Outlet,
  parseSearchWith,
  stringifySearchWith,
} from '@tanstack/react-router';
import { Loading } from '../components/QueryState';
import { anomaliesSearch } from '../features/anomalies/search';
import { auditSearch } from '../features/audit/search';
import { datasetSearch } from '../features/datasets/search';
import { experimentSearch } from '../features/experiments/search';
import { overviewSearch } from '../features/overview/search';
import { playgroundSearch } from '../features/playground/search';
import { recommendationsSearch } from '../features/recommendations/search';
import { requestsSearch } from '../features/requests/search';
import { scoresSearch } from '../features/scores/search';
import { securitySearch } from '../features/security/search';
import { settingsSearch } from '../features/settings/search';
import { traceSearch, tracesSearch } from '../features/traces/search';
import { webhooksSearch } from '../features/webhooks/search';
import { Layout } from './Layout';
import { NotFound, RouteError } from './RouteStates';

/**
 * Every URL of the dashboard (TanStack Router, code-based). Each page is its own chunk, loaded
 * when first opened; filters are validated search params declared in the feature's `search.ts`.
 * To add a page: a component in `features/<area>/pages/`, a route here, an entry in nav.ts.
 */
const root = createRootRoute({ component: Outlet });

// Public: no session, no shell.
const shared = createRoute({
  getParentRoute: () => root,
  path: '/share/$token',
  component: lazy(() => import('../features/shared/pages/SharedPage'), 'SharedPage'),
});
const callback = createRoute({
  getParentRoute: () => root,
  path: '/auth/callback',
  component: lazy(() => import('../features/auth/pages/AuthCallbackPage'), 'AuthCallbackPage'),
});

// Signed in, inside the shell.
const app = createRoute({ getParentRoute: () => root, id: 'app', component: Layout });
const at = () => app;

const routes = [
  createRoute({
    getParentRoute: at,
    path: '/',
    validateSearch: overviewSearch,
    component: lazy(() => import('../features/overview/pages/OverviewPage'), 'OverviewPage'),
  }),
  createRoute({
    getParentRoute: at,
    path: '/requests',
    validateSearch: requestsSearch,
    component: lazy(() => import('../features/requests/pages/RequestsPage'), 'RequestsPage'),
  }),
  createRoute({
    getParentRoute: at,
    path: '/requests/$id',
    component: lazy(() => import('../features/requests/pages/RequestDetailPage'), 'RequestDetailPage'),
  }),
  createRoute({
    getParentRoute: at,
    path: '/traces',
    validateSearch: tracesSearch,
    component: lazy(() => import('../features/traces/pages/TracesPage'), 'TracesPage'),
  }),
  createRoute({
    getParentRoute: at,
    path: '/traces/$id',
    validateSearch: traceSearch,
    component: lazy(() => import('../features/traces/pages/TraceDetailPage'), 'TraceDetailPage'),
  }),
  createRoute({
    getParentRoute: at,
    path: '/sessions',
    component: lazy(() => import('../features/sessions/pages/SessionsPage'), 'SessionsPage'),
  }),
  createRoute({
    getParentRoute: at,
    path: '/sessions/$id',
    component: lazy(() => import('../features/sessions/pages/SessionDetailPage'), 'SessionDetailPage'),
  }),
  createRoute({
    getParentRoute: at,
    path: '/users',
    component: lazy(() => import('../features/users/pages/UsersPage'), 'UsersPage'),
  }),
  createRoute({
    getParentRoute: at,
    path: '/users/$id',
    component: lazy(() => import('../features/users/pages/UserDetailPage'), 'UserDetailPage'),
  }),
  createRoute({
    getParentRoute: at,
    path: '/prompts',
    component: lazy(() => import('../features/prompts/pages/PromptsPage'), 'PromptsPage'),
  }),
  createRoute({
    getParentRoute: at,
    path: '/prompts/$id',
    component: lazy(() => import('../features/prompts/pages/PromptDetailPage'), 'PromptDetailPage'),
  }),
  createRoute({
    getParentRoute: at,
    path: '/playground',
    validateSearch: playgroundSearch,
    component: lazy(() => import('../features/playground/pages/PlaygroundPage'), 'PlaygroundPage'),
  }),
  createRoute({
    getParentRoute: at,
    path: '/evaluators',
    component: lazy(() => import('../features/evaluators/pages/EvaluatorsPage'), 'EvaluatorsPage'),
  }),
  createRoute({
    getParentRoute: at,
    path: '/eval-runs',
    component: lazy(() => import('../features/eval-runs/pages/EvalRunsPage'), 'EvalRunsPage'),
  }),
  createRoute({
    getParentRoute: at,
    path: '/datasets',
    component: lazy(() => import('../features/datasets/pages/DatasetsPage'), 'DatasetsPage'),
  }),
  createRoute({
    getParentRoute: at,
    path: '/datasets/$id',
    validateSearch: datasetSearch,
    component: lazy(() => import('../features/datasets/pages/DatasetDetailPage'), 'DatasetDetailPage'),
  }),
  createRoute({
    getParentRoute: at,
    path: '/experiments',
    component: lazy(() => import('../features/experiments/pages/ExperimentsPage'), 'ExperimentsPage'),
  }),
  createRoute({
    getParentRoute: at,
    path: '/experiments/$id',
    validateSearch: experimentSearch,
    component: lazy(() => import('../features/experiments/pages/ExperimentDetailPage'), 'ExperimentDetailPage'),
  }),
  createRoute({
    getParentRoute: at,
    path: '/scores',
    validateSearch: scoresSearch,
    component: lazy(() => import('../features/scores/pages/ScoresPage'), 'ScoresPage'),
  }),
  createRoute({
    getParentRoute: at,
    path: '/annotation',
    component: lazy(() => import('../features/annotation/pages/AnnotationPage'), 'AnnotationPage'),
  }),
  createRoute({
    getParentRoute: at,
    path: '/alerts',
    component: lazy(() => import('../features/alerts/pages/AlertsPage'), 'AlertsPage'),
  }),
  createRoute({
    getParentRoute: at,
    path: '/anomalies',
    validateSearch: anomaliesSearch,
    component: lazy(() => import('../features/anomalies/pages/AnomaliesPage'), 'AnomaliesPage'),
  }),
  createRoute({
    getParentRoute: at,
    path: '/recommendations',
    validateSearch: recommendationsSearch,
    component: lazy(() => import('../features/recommendations/pages/RecommendationsPage'), 'RecommendationsPage'),
  }),
  createRoute({
    getParentRoute: at,
    path: '/security',
    validateSearch: securitySearch,
    component: lazy(() => import('../features/security/pages/SecurityPage'), 'SecurityPage'),
  }),
  createRoute({
    getParentRoute: at,
    path: '/webhooks',
    validateSearch: webhooksSearch,
    component: lazy(() => import('../features/webhooks/pages/WebhooksPage'), 'WebhooksPage'),
  }),
  createRoute({
    getParentRoute: at,
    path: '/audit',
    validateSearch: auditSearch,
    component: lazy(() => import('../features/audit/pages/AuditPage'), 'AuditPage'),
  }),
  createRoute({
    getParentRoute: at,
    path: '/shares',
    component: lazy(() => import('../features/shares/pages/SharesPage'), 'SharesPage'),
  }),
  createRoute({
    getParentRoute: at,
    path: '/settings',
    validateSearch: settingsSearch,
    component: lazy(() => import('../features/settings/pages/SettingsPage'), 'SettingsPage'),
  }),
  // Any other address: "page not found" inside the shell, with the way back.
  createRoute({ getParentRoute: at, path: '$', component: NotFound }),
] as const;

const tree = root.addChildren([shared, callback, app.addChildren(routes)]);

export function createAppRouter() {
  return createRouter({
    routeTree: tree,
    // Plain strings in the URL (`?status=200`, not JSON): filters read like the API call they make.
    parseSearch: parseSearchWith((v) => v),
    stringifySearch: stringifySearchWith(String),
    defaultPendingComponent: () => <Loading />,
    defaultPendingMs: 150,
    defaultErrorComponent: RouteError,
    defaultPreload: 'intent',
    scrollRestoration: true,
  });
}

declare module '@tanstack/react-router' {
  interface Register {
    router: ReturnType<typeof createAppRouter>;
  }
}
