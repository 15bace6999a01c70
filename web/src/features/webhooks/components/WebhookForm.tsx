import { Button, Checkbox, Group, Paper, SimpleGrid, Stack, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useId } from 'react';
import { WEBHOOK_EVENTS, type WebhookEvent } from '../../../api/enums';
import type { Schema } from '../../../api/types';
import { ErrorState } from '../../../components/QueryState';
import { SecretOnce } from '../../../components/SecretOnce';
import { useCreateWebhook, useUpdateWebhook } from '../hooks/useWebhooks';

interface Values {
  name: string;
  url: string;
  events: WebhookEvent[];
}

/**
 * A new webhook (its signing secret is shown once, right here) or, with `webhook`, an existing
 * one's name, URL and events (PATCH; the secret stays as it is).
 */
export function WebhookForm({ webhook, onDone }: { webhook?: Schema<'Webhook'>; onDone?: () => void } = {}) {
  const create = useCreateWebhook();
  const update = useUpdateWebhook();
  const write = webhook ? update : create;
  const uid = useId();
  const form = useForm<Values>({
    initialValues: webhook ? { name: webhook.name, url: webhook.url, events: webhook.events } : { name: '', url: '', events: ['request.created'] },
    validate: {
      name: (v) => (v.trim() ? null : 'Name it'),
      url: (v) => (/^https?:\/\/\S+$/.test(v.trim()) ? null : 'An http(s) URL'),
      events: (v) => (v.length ? null : 'Pick at least one event'),
    },
  });
  const submit = form.onSubmit((v) => {
    const body = { ...v, name: v.name.trim(), url: v.url.trim() };
    if (webhook) update.mutate({ id: webhook.id, body }, { onSuccess: () => onDone?.() });
    else create.mutate(body, { onSuccess: () => form.reset() });
  });
  return (
    <Paper withBorder p="md" component="form" onSubmit={submit} aria-labelledby={`${uid}-title`}>
      <Stack gap="sm">
        <Title order={webhook ? 3 : 2} size="h4" id={`${uid}-title`}>{webhook ? `Edit “${webhook.name}”` : 'New webhook'}</Title>
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
          <TextInput label="Name" name="name" {...form.getInputProps('name')} />
          <TextInput label="URL" name="url" type="url" placeholder="https://…" {...form.getInputProps('url')} />
        </SimpleGrid>
        <Checkbox.Group label="Events" {...form.getInputProps('events')}>
          <Group gap="md" mt={6}>{WEBHOOK_EVENTS.map((e) => <Checkbox key={e} value={e} label={e} />)}</Group>
        </Checkbox.Group>
        {write.error && <ErrorState error={write.error} title={webhook ? 'Could not save the webhook' : 'Could not create the webhook'} />}
        <Group gap="sm">
          <Button type="submit" loading={write.isPending}>{webhook ? 'Save webhook' : 'Create webhook'}</Button>
          {webhook && onDone && <Button variant="default" onClick={onDone}>Cancel</Button>}
        </Group>
        {!webhook && create.data && <SecretOnce title="Signing secret" value={create.data.secret} testId="secret" onDone={create.reset} />}
      </Stack>
    </Paper>
  );
}
