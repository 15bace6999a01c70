import {
  Badge,
  Button,
  Checkbox,
  Group,
  Input,
  Paper,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { useId, useState, type ReactNode } from 'react';
import { WEBHOOK_EVENTS, type WebhookEvent } from '../../../api/enums';
import type { Schema } from '../../../api/types';
import { ErrorState } from '../../../components/QueryState';
import { SecretOnce } from '../../../components/SecretOnce';
import { useCreateWebhook, useEventTypes, useUpdateWebhook } from '../hooks/useWebhooks';
import { HeadersEditor, headerError, headersBody, type HeaderRow } from './HeadersEditor';

interface Values {
  name: string;
  url: string;
  events: WebhookEvent[];
}

/** The events to subscribe to, each with what it means (the API's event catalogue, when it has answered). */
function EventsPicker(props: { value: WebhookEvent[]; onChange: (v: WebhookEvent[]) => void; error?: ReactNode }) {
  const catalogue = useEventTypes();
  const about = new Map((catalogue.data ?? []).map((t) => [t.name, t.description]));
  return (
    <Checkbox.Group
      label="Events"
      value={props.value}
      error={props.error}
      onChange={(v) => props.onChange(v as WebhookEvent[])}
    >
      <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="sm" mt={6}>
        {WEBHOOK_EVENTS.map((e) => (
          <Checkbox key={e} value={e} label={e} description={about.get(e)} />
        ))}
      </SimpleGrid>
    </Checkbox.Group>
  );
}

/**
 * A new webhook (its signing secret is shown once, right here) or, with `webhook`, an existing
 * one's name, URL, events and custom headers (PATCH; the secret stays as it is). Header values
 * are write-only: an edit shows the names and replaces the whole set, or leaves it alone.
 */
export function WebhookForm({ webhook, onDone }: { webhook?: Schema<'Webhook'>; onDone?: () => void } = {}) {
  const create = useCreateWebhook();
  const update = useUpdateWebhook();
  const write = webhook ? update : create;
  const uid = useId();
  const existing = webhook?.header_names ?? [];
  // On edit the set is kept unless the user chooses to replace it (values cannot be read back).
  const [replace, setReplace] = useState(!webhook);
  const blank = () => existing.map((name) => ({ name, value: '' }));
  const [rows, setRows] = useState<HeaderRow[]>(blank);
  const [showErrors, setShowErrors] = useState(false);
  const form = useForm<Values>({
    initialValues: webhook
      ? { name: webhook.name, url: webhook.url, events: webhook.events }
      : { name: '', url: '', events: ['request.created'] },
    validate: {
      name: (v) => (v.trim() ? null : 'Name it'),
      url: (v) => (/^https?:\/\/\S+$/.test(v.trim()) ? null : 'An http(s) URL'),
      events: (v) => (v.length ? null : 'Pick at least one event'),
    },
  });
  const submit = form.onSubmit((v) => {
    if (replace && rows.some((_, i) => headerError(rows, i))) return setShowErrors(true);
    const headers = replace ? headersBody(rows) : undefined;
    const body = { ...v, name: v.name.trim(), url: v.url.trim(), ...(headers && { headers }) };
    if (webhook) update.mutate({ id: webhook.id, body }, { onSuccess: () => onDone?.() });
    else create.mutate(body, { onSuccess: () => (form.reset(), setRows([]), setShowErrors(false)) });
  });
  return (
    <Paper withBorder p="md" component="form" onSubmit={submit} aria-labelledby={`${uid}-title`}>
      <Stack gap="sm">
        <Title order={webhook ? 3 : 2} size="h4" id={`${uid}-title`}>
          {webhook ? `Edit “${webhook.name}”` : 'New webhook'}
        </Title>
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
          <TextInput label="Name" name="name" {...form.getInputProps('name')} />
          <TextInput label="URL" name="url" type="url" placeholder="https://…" {...form.getInputProps('url')} />
        </SimpleGrid>
        <EventsPicker
          value={form.values.events}
          onChange={(v) => form.setFieldValue('events', v)}
          error={form.errors.events}
        />
        <Stack gap={6} role="group" aria-labelledby={`${uid}-headers`}>
          <div>
            <Input.Label labelElement="div" id={`${uid}-headers`}>
              Custom headers
            </Input.Label>
            <Input.Description>
              Sent with every attempt, e.g. the receiver’s Authorization. Values are stored encrypted and never shown
              again.
            </Input.Description>
          </div>
          {webhook && (
            <>
              <Group gap={6} wrap="wrap" data-testid="header-names">
                <Text size="sm">Now:</Text>
                {existing.length ? (
                  existing.map((n) => (
                    <Badge key={n} variant="light" color="gray" radius="sm" tt="none">
                      {n}
                    </Badge>
                  ))
                ) : (
                  <Text size="sm" c="dimmed">
                    none
                  </Text>
                )}
              </Group>
              <Switch
                label={existing.length ? 'Replace the headers' : 'Add headers'}
                checked={replace}
                description={
                  existing.length
                    ? 'Replaces the whole set: type every value again; remove all rows to send none.'
                    : 'Once saved, only their names are shown.'
                }
                onChange={(e) => (setReplace(e.currentTarget.checked), setRows(blank()), setShowErrors(false))}
              />
            </>
          )}
          {replace && <HeadersEditor rows={rows} onChange={setRows} errors={showErrors} />}
        </Stack>
        {write.error && (
          <ErrorState
            error={write.error}
            title={webhook ? 'Could not save the webhook' : 'Could not create the webhook'}
          />
        )}
        <Group gap="sm">
          <Button type="submit" loading={write.isPending}>
            {webhook ? 'Save webhook' : 'Create webhook'}
          </Button>
          {webhook && onDone && (
            <Button variant="default" onClick={onDone}>
              Cancel
            </Button>
          )}
        </Group>
        {!webhook && create.data && (
          <SecretOnce title="Signing secret" value={create.data.secret} testId="secret" onDone={create.reset} />
        )}
      </Stack>
    </Paper>
  );
}
