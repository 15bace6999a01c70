import type { ErrorComponentProps } from '@tanstack/react-router';
import { ButtonLink } from '../components/Links';
import { Page } from '../components/Page';
import { EmptyView, ErrorState } from '../components/QueryState';

export function NotFound() {
  return (
    <Page title="Page not found">
      <EmptyView
        title="No such page"
        description="The address does not name a page of the dashboard."
        action={
          <ButtonLink to="/" variant="default">
            Go to the overview
          </ButtonLink>
        }
      />
    </Page>
  );
}

/** A page that threw while rendering (or whose code failed to load): say so, offer a retry. */
export function RouteError({ error, reset }: ErrorComponentProps) {
  return (
    <ErrorState
      error={error instanceof Error ? error : new Error(String(error))}
      title="This page failed"
      onRetry={reset}
    />
  );
}
