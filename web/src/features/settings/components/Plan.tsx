import { Badge, Button, Group, NativeSelect, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useCurrent } from '../../../app/current';
import { ConfirmButton } from '../../../components/ConfirmButton';
import { DataTable } from '../../../components/DataTable';
import { Kpis } from '../../../components/Facts';
import { Section } from '../../../components/Page';
import { ErrorState, QueryState } from '../../../components/QueryState';
import { useProjects } from '../../../hooks/useProjects';
import { useSession } from '../../../session/context';
import * as fmt from '../../../lib/format';
import { useBilling, useRateLimits, useRemoveRateLimit, useSaveRateLimit } from '../hooks/useSettings';

const windowText = (s: number) => (s % 3600 === 0 ? `${s / 3600} h` : s % 60 === 0 ? `${s / 60} min` : `${s} s`);
const WINDOWS = [
  { value: '60', label: '1 minute' },
  { value: '3600', label: '1 hour' },
  { value: '86400', label: '1 day' },
  { value: '2592000', label: '30 days' },
];

interface LimitValues {
  project_id: string;
  requests: string;
  tokens: string;
  window: string;
}
const positive = (v: string) =>
  v.trim() === '' || (Number.isInteger(Number(v)) && Number(v) > 0)
    ? null
    : 'A whole number above 0, or empty for unlimited';

/** The plan with its usage, and each project's per-user rate limits (writers edit them). */
export function Plan() {
  const { canWrite } = useCurrent();
  const billing = useBilling();
  const limits = useRateLimits();
  const projects = useProjects();
  const save = useSaveRateLimit();
  const remove = useRemoveRateLimit();
  const { projectId } = useSession();
  const projectName = (id: string) => projects.data?.find((p) => p.id === id)?.name ?? id;
  const form = useForm<LimitValues>({
    initialValues: { project_id: '', requests: '', tokens: '', window: '60' },
    validate: { requests: positive, tokens: positive },
  });
  const target = form.values.project_id || projectId || projects.data?.[0]?.id || '';
  const edit = (l: {
    project_id: string;
    requests_per_window: number | null;
    tokens_per_window: number | null;
    window_seconds: number;
  }) =>
    form.setValues({
      project_id: l.project_id,
      requests: l.requests_per_window === null ? '' : String(l.requests_per_window),
      tokens: l.tokens_per_window === null ? '' : String(l.tokens_per_window),
      window: String(l.window_seconds),
    });
  const windows = WINDOWS.some((w) => w.value === form.values.window)
    ? WINDOWS
    : [...WINDOWS, { value: form.values.window, label: windowText(Number(form.values.window)) }];
  return (
    <Stack gap="xl">
      <Section title="Plan and usage">
        <QueryState query={billing} what="the plan">
          {(b) => (
            <Stack gap="sm">
              <Group gap="xs">
                Plan{' '}
                <Badge variant="light" radius="sm" tt="none" size="lg">
                  {b.plan}
                </Badge>
              </Group>
              <Kpis
                items={[
                  ['Projects', fmt.int(b.usage.projects)],
                  ['Members', fmt.int(b.usage.members)],
                  ['API keys', fmt.int(b.usage.api_keys)],
                  ['Requests this month', fmt.int(b.usage.requests_this_month)],
                  [
                    'Workspaces per owner',
                    b.limits.workspaces_per_owner === null ? 'unlimited' : fmt.int(b.limits.workspaces_per_owner),
                  ],
                ]}
              />
            </Stack>
          )}
        </QueryState>
      </Section>
      <Section title="Rate limits">
        <Text size="sm" c="dimmed">
          Per end user (the x-service-user-id header): calls over the limit in a window are refused with 429.
        </Text>
        <QueryState
          query={limits}
          what="rate limits"
          empty={{
            title: 'No rate limits',
            description: canWrite
              ? 'Set one below: each project can cap requests and tokens per user and window.'
              : 'An editor or admin sets them.',
          }}
        >
          {(rows) => (
            <DataTable
              caption="Rate limits"
              rows={rows}
              rowKey={(l) => l.project_id}
              minWidth={640}
              columns={[
                { key: 'p', label: 'Project', render: (l) => projectName(l.project_id) },
                {
                  key: 'r',
                  label: 'Requests / user',
                  numeric: true,
                  render: (l) => (l.requests_per_window === null ? 'unlimited' : fmt.int(l.requests_per_window)),
                },
                {
                  key: 't',
                  label: 'Tokens / user',
                  numeric: true,
                  render: (l) => (l.tokens_per_window === null ? 'unlimited' : fmt.int(l.tokens_per_window)),
                },
                { key: 'w', label: 'Window', render: (l) => windowText(l.window_seconds) },
                { key: 'u', label: 'Updated', render: (l) => fmt.time(l.updated_at) },
                ...(canWrite
                  ? [
                      {
                        key: 'a',
                        label: 'Actions',
                        render: (l: (typeof rows)[number]) => (
                          <Group gap="xs" wrap="nowrap">
                            <Button
                              size="xs"
                              variant="default"
                              aria-label={`Edit the limit of ${projectName(l.project_id)}`}
                              onClick={() => edit(l)}
                            >
                              Edit
                            </Button>
                            <ConfirmButton
                              title="Remove the limit?"
                              message={`Users of ${projectName(l.project_id)} are no longer limited.`}
                              confirm="Remove"
                              aria-label={`Remove the limit of ${projectName(l.project_id)}`}
                              onConfirm={() => remove.mutate(l.project_id)}
                            >
                              Remove
                            </ConfirmButton>
                          </Group>
                        ),
                      },
                    ]
                  : []),
              ]}
            />
          )}
        </QueryState>
        {remove.error && <ErrorState error={remove.error} title="Could not remove the limit" />}
        {canWrite && projects.data?.length ? (
          <form
            aria-label="Rate limit"
            onSubmit={form.onSubmit((v) =>
              save.mutate(
                {
                  project_id: target,
                  window_seconds: Number(v.window),
                  requests_per_window: v.requests.trim() ? Number(v.requests) : null,
                  tokens_per_window: v.tokens.trim() ? Number(v.tokens) : null,
                },
                { onSuccess: () => form.reset() },
              ),
            )}
          >
            <Group align="flex-start" gap="sm">
              <NativeSelect
                label="Project"
                name="limit_project"
                data={projects.data.map((p) => ({ value: p.id, label: p.name }))}
                value={target}
                onChange={(e) => form.setFieldValue('project_id', e.currentTarget.value)}
              />
              <TextInput
                label="Requests per user"
                name="requests_per_window"
                placeholder="unlimited"
                w={160}
                {...form.getInputProps('requests')}
              />
              <TextInput
                label="Tokens per user"
                name="tokens_per_window"
                placeholder="unlimited"
                w={160}
                {...form.getInputProps('tokens')}
              />
              <NativeSelect label="Window" name="window_seconds" data={windows} {...form.getInputProps('window')} />
              <Button type="submit" mt={25} loading={save.isPending}>
                Save limit
              </Button>
            </Group>
            {save.error && <ErrorState error={save.error} title="Could not save the limit" />}
          </form>
        ) : null}
      </Section>
    </Stack>
  );
}
