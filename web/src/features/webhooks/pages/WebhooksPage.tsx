import { Stack } from '@mantine/core';
import { useState } from 'react';
import { useCurrent } from '../../../app/current';
import { Page } from '../../../components/Page';
import { ErrorState, QueryState } from '../../../components/QueryState';
import { toast } from '../../../lib/toast';
import { useUiConfig } from '../../auth/useUiConfig';
import { WebhookCard, type Panel } from '../components/WebhookCard';
import { WebhookForm } from '../components/WebhookForm';
import { useWebhooksSearch } from '../hooks/useWebhooksSearch';
import { useDeleteWebhook, usePauseWebhook, useTestWebhook, useWebhooks } from '../hooks/useWebhooks';

// Closing the attempt log takes its filters out of the URL too.
const NO_LOG = {
  log: undefined,
  status: undefined,
  http_status: undefined,
  event_type: undefined,
  range: undefined,
  health: undefined,
};
const EMPTY = 'Create one above to be told about new calls, finished traces or alerts.';

/**
 * Webhooks: create (the secret once), edit (custom headers too), send a test, pause, rotate the
 * secret, enable one the service disabled, delete; the deliveries linked to Temporal, each with its
 * attempts and Redeliver; recovering the failed ones of a time window.
 */
export function WebhooksPage() {
  const list = useWebhooks();
  const config = useUiConfig();
  const { canWrite } = useCurrent();
  // One panel open at a time under a webhook: its deliveries, recoveries, editor or secret rotation;
  // the attempt log is in the URL (`log=<id>`, with its filters), so a link opens it.
  const [open, setOpen] = useState<{ id: string; panel: Panel } | null>(null);
  const [search, setSearch] = useWebhooksSearch();
  const closeLog = () => {
    if (search.log) setSearch(NO_LOG);
  };
  const toggle = (id: string, mine: Panel | null, panel: Panel) => {
    const opening = mine !== panel;
    setOpen(opening && panel !== 'attempts' ? { id, panel } : null);
    if (panel === 'attempts') setSearch(opening ? { ...NO_LOG, log: id } : NO_LOG);
    else closeLog();
  };
  const temporalUi = config.data?.temporal_ui_url ?? null;
  const test = useTestWebhook();
  const pause = usePauseWebhook();
  const remove = useDeleteWebhook();
  const failed = test.error ?? pause.error ?? remove.error;
  const sendTest = (id: string) =>
    test.mutate(id, {
      onSuccess: (r) =>
        toast(
          [`Test ${r.status}`, r.http_status && ` (HTTP ${r.http_status})`, r.error_message && `: ${r.error_message}`]
            .filter(Boolean)
            .join(''),
          r.status === 'delivered' ? 'green' : 'red',
        ),
    });
  return (
    <Page
      title="Webhooks"
      description="Signed HTTPS callbacks on events; every delivery is a durable Temporal workflow with retries."
    >
      {canWrite && <WebhookForm />}
      {failed && <ErrorState error={failed} title="Could not change the webhook" />}
      <QueryState
        query={list}
        what="webhooks"
        empty={{
          title: 'No webhooks yet',
          description: canWrite ? EMPTY : 'An editor or admin can create them.',
        }}
      >
        {(hooks) => (
          <Stack gap="sm" component="ul" p={0} m={0} style={{ listStyle: 'none' }}>
            {hooks.map((w) => {
              const mine = search.log === w.id ? 'attempts' : open?.id === w.id ? open.panel : null;
              return (
                <WebhookCard
                  key={w.id}
                  w={w}
                  a={{
                    open: mine,
                    toggle: (panel) => toggle(w.id, mine, panel),
                    close: () => {
                      closeLog();
                      setOpen(null);
                    },
                    temporalUi,
                    testing: test.isPending && test.variables === w.id,
                    sendTest: () => sendTest(w.id),
                    pause: () => pause.mutate({ id: w.id, is_active: !w.is_active }),
                    remove: () => remove.mutate(w.id),
                  }}
                />
              );
            })}
          </Stack>
        )}
      </QueryState>
    </Page>
  );
}
