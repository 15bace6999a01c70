import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';
import './styles.css';
import { localStorageColorSchemeManager, MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from '@tanstack/react-router';
import { lazy, StrictMode, Suspense } from 'react';
import { createRoot } from 'react-dom/client';
import { ApiError, createApi } from './api/client';
import { createAppRouter } from './app/router';
import { takeTokenFromLink } from './features/auth/token-link';
import { ServicesProvider } from './session/context';
import { createSessionStore } from './session/store';
import { cssVariables, theme } from './theme';

// The toasts' container (and its transitions) loads after the first paint; toasts wait in its store.
const Notifications = lazy(() => import('@mantine/notifications').then((m) => ({ default: m.Notifications })));

/** The app's long-lived objects, made once here and handed down through context. */
function main() {
  const session = createSessionStore();
  const linked = takeTokenFromLink();
  if (linked) session.signIn(linked);
  const api = createApi(session);
  const queryClient = new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 30_000,
        // A 4xx will not change on retry (bad filter, gone, forbidden): show it at once.
        retry: (n, e) => !(e instanceof ApiError && e.status >= 400 && e.status < 500) && n < 2,
      },
    },
  });
  const router = createAppRouter();
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <MantineProvider
        theme={theme}
        cssVariablesResolver={cssVariables}
        defaultColorScheme="auto"
        colorSchemeManager={localStorageColorSchemeManager({ key: 'gw.theme' })}
      >
        <Suspense>
          <Notifications position="bottom-right" />
        </Suspense>
        <ServicesProvider session={session} api={api}>
          <QueryClientProvider client={queryClient}>
            <RouterProvider router={router} />
          </QueryClientProvider>
        </ServicesProvider>
      </MantineProvider>
    </StrictMode>,
  );
}

main();
