import { Alert, Button, Code, CopyButton, Group, List, Loader, Paper, Stack, Tabs, Text, Title } from '@mantine/core';
import { IconCheck, IconConfetti, IconCopy } from '@tabler/icons-react';
import { ButtonLink } from '../../../components/Links';
import * as fmt from '../../../lib/format';
import { useFirstCall } from '../hooks/useStats';
import { snippets } from '../lib/snippets';

/**
 * No calls yet: the steps from nothing to a first call, a working snippet for each way in (the
 * gateway's address filled in), and a live wait for that call (polled): when it arrives, the
 * guide says so and links to it. `onDone` shows the overview with the new call counted.
 */
export function FirstRun({ onDone }: { onDone: () => void }) {
  const first = useFirstCall();
  const call = first.data?.[0];
  return (
    <Paper withBorder p={{ base: 'md', sm: 'xl' }} radius="md">
      <Stack gap="md" maw={820}>
        <div>
          <Title order={2} size="h3">
            Send your first call
          </Title>
          <Text c="dimmed" size="sm">
            Calls through the gateway appear here with their cost, tokens and latency.
          </Text>
        </div>
        <List type="ordered" spacing="xs" size="sm">
          <List.Item>Create a project and an API key in Settings (the key is shown once).</List.Item>
          <List.Item>Add your provider key to the project (Settings → Provider keys).</List.Item>
          <List.Item>Point your SDK at the gateway, with your key in place of the placeholder:</List.Item>
        </List>
        <div>
          <ButtonLink to="/settings" variant="default" size="xs">
            Create a project and a key
          </ButtonLink>
        </div>
        <Tabs defaultValue="openai" keepMounted={false} variant="pills" radius="md">
          <Tabs.List>
            {snippets(location.origin).map((s) => (
              <Tabs.Tab key={s.id} value={s.id}>
                {s.label}
              </Tabs.Tab>
            ))}
          </Tabs.List>
          {snippets(location.origin).map((s) => (
            <Tabs.Panel key={s.id} value={s.id} pt="sm">
              <Stack gap={6}>
                <Group justify="space-between" gap="xs">
                  <Text size="xs" c="dimmed">
                    {s.language}
                  </Text>
                  <CopyButton value={s.code}>
                    {({ copied, copy }) => (
                      <Button
                        size="compact-xs"
                        variant="default"
                        onClick={copy}
                        leftSection={copied ? <IconCheck size={12} aria-hidden /> : <IconCopy size={12} aria-hidden />}
                      >
                        {copied ? 'Copied' : 'Copy'}
                      </Button>
                    )}
                  </CopyButton>
                </Group>
                <Code
                  block
                  tabIndex={0}
                  aria-label={`Snippet: ${s.label}`}
                  data-testid={`snippet-${s.id}`}
                  style={{ whiteSpace: 'pre', overflowX: 'auto' }}
                >
                  {s.code}
                </Code>
              </Stack>
            </Tabs.Panel>
          ))}
        </Tabs>
        {call ? (
          <Alert
            variant="light"
            color="green"
            icon={<IconConfetti size={20} aria-hidden />}
            title="Your first call arrived"
            role="status"
          >
            <Stack gap="xs">
              <Text size="sm">
                {call.model} via {call.provider}, {fmt.int(call.total_tokens)} tokens, {fmt.usd(call.cost_usd)},{' '}
                {fmt.ms(call.latency_ms)}.
              </Text>
              <Group gap="sm">
                <ButtonLink to="/requests/$id" params={{ id: call.id }} size="xs">
                  Open the call
                </ButtonLink>
                <Button size="xs" variant="default" onClick={onDone}>
                  Show the overview
                </Button>
              </Group>
            </Stack>
          </Alert>
        ) : (
          <Group gap="xs" role="status" aria-live="polite" wrap="nowrap">
            <Loader size="xs" type="dots" aria-hidden style={{ flexShrink: 0 }} />
            <Text size="sm" c="dimmed">
              Waiting for your first call… it shows here as soon as it arrives.
            </Text>
          </Group>
        )}
      </Stack>
    </Paper>
  );
}
