import { Alert, Button, Center, EmptyState, Group, Loader, Text } from '@mantine/core';
import { IconAlertTriangle, IconInbox } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { ApiError } from '../api/client';

/** What a page shows when a list is empty: what the area is for and the next step. */
export interface Empty {
  title: string;
  description?: ReactNode;
  action?: ReactNode;
}

interface QueryLike<T> {
  data: T | undefined;
  error: Error | null;
  isPending: boolean;
  refetch: () => unknown;
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <Center py="xl" aria-busy="true" aria-live="polite">
      <Group gap="sm">
        <Loader size="sm" aria-hidden="true" />
        <Text c="dimmed" size="sm">
          {label}
        </Text>
      </Group>
    </Center>
  );
}

/** An error with what to do next: retry, sign in again, or ask an admin. */
export function ErrorState({
  error,
  what = 'this',
  title,
  onRetry,
}: {
  error: Error;
  what?: string;
  title?: string;
  onRetry?: () => unknown;
}) {
  const status = error instanceof ApiError ? error.status : 0;
  const hint =
    status === 401
      ? 'Your sign-in has ended: sign in again.'
      : status === 403
        ? 'Your role does not allow this: ask an admin of the organization.'
        : status === 404
          ? 'It does not exist, or belongs to another organization.'
          : null;
  return (
    <Alert
      color="red"
      variant="light"
      title={title ?? `Could not load ${what}`}
      icon={<IconAlertTriangle aria-hidden="true" />}
    >
      <Text size="sm">{error.message}</Text>
      {hint && (
        <Text size="sm" mt={4}>
          {hint}
        </Text>
      )}
      <Group mt="sm" gap="sm">
        {onRetry && status !== 401 && (
          <Button size="xs" variant="default" onClick={() => void onRetry()}>
            Retry
          </Button>
        )}
        {status === 401 && (
          <Button size="xs" variant="default" onClick={() => location.assign('/')}>
            Sign in again
          </Button>
        )}
      </Group>
    </Alert>
  );
}

export function EmptyView({ title, description, action }: Empty) {
  return (
    <EmptyState
      py="xl"
      title={title}
      description={description}
      icon={<IconInbox size={28} aria-hidden="true" />}
      withIndicatorBackground
    >
      {action && <EmptyState.Actions>{action}</EmptyState.Actions>}
    </EmptyState>
  );
}

/**
 * Loading, error and empty states, the same on every page: children render only with data.
 * `empty` is shown when `isEmpty` says so (default: an empty array).
 */
export function QueryState<T>({
  query,
  what,
  empty,
  isEmpty,
  children,
}: {
  query: QueryLike<T>;
  what?: string;
  empty?: Empty;
  isEmpty?: (d: T) => boolean;
  children: (d: T) => ReactNode;
}) {
  if (query.error && query.data === undefined)
    return <ErrorState error={query.error} what={what} onRetry={query.refetch} />;
  if (query.data === undefined) return <Loading />;
  const blank = isEmpty ? isEmpty(query.data) : Array.isArray(query.data) && query.data.length === 0;
  if (blank && empty) return <EmptyView {...empty} />;
  return <>{children(query.data)}</>;
}
