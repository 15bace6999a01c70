import { Button, Checkbox, Group, Paper, SimpleGrid, Stack, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { WEBHOOK_EVENTS, type WebhookEvent } from '../../../api/enums';
import { ErrorState } from '../../../components/QueryState';
import { SecretOnce } from '../../../components/SecretOnce';
import { useCreateWebhook } from '../hooks/useWebhooks';

/** A new webhook; its signing secret is shown once, right here. */
export function WebhookForm() {
  const create = useCreateWebhook();
  const form = useForm<{ name: string; url: string; events: WebhookEvent[] }>({
    initialValues: { name: '', url: '', events: ['request.created'] },
    validate: {
      name: (v) => (v.trim() ? null : 'Name it'),
      url: (v) => (/^https?:\/\/\S+$/.test(v.trim()) ? null : 'An http(s) URL'),
      events: (v) => (v.length ? null : 'Pick at least one event'),
    },
  });
  return (
    <Paper withBorder p="md" component="form" onSubmit={form.onSubmit((v) => create.mutate({ ...v, name: v.name.trim(), url: v.url.trim() }, { onSuccess: () => form.reset() }))}>
      <Stack gap="sm">
        <Title order={2} size="h4">New webhook</Title>
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
          <TextInput label="Name" name="name" {...form.getInputProps('name')} />
          <TextInput label="URL" name="url" type="url" placeholder="https://…" {...form.getInputProps('url')} />
        </SimpleGrid>
        <Checkbox.Group label="Events" {...form.getInputProps('events')}>
          <Group gap="md" mt={6}>{WEBHOOK_EVENTS.map((e) => <Checkbox key={e} value={e} label={e} />)}</Group>
        </Checkbox.Group>
        {create.error && <ErrorState error={create.error} title="Could not create the webhook" />}
        <Group><Button type="submit" loading={create.isPending}>Create webhook</Button></Group>
        {create.data && <SecretOnce title="Signing secret" value={create.data.secret} testId="secret" onDone={create.reset} />}
      </Stack>
    </Paper>
  );
}
