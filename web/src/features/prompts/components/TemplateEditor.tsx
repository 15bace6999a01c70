import {
  ActionIcon,
  Button,
  Group,
  Input,
  NativeSelect,
  Paper,
  SegmentedControl,
  Stack,
  Text,
  Textarea,
} from '@mantine/core';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { useId } from 'react';
import { ROLES, variablesOf, type ChatRole, type Template } from '../lib/template';

const isRole = (r: string): r is ChatRole => ROLES.some((x) => x === r);

/**
 * A template as text or as chat messages (role + content each). Switching keeps the words: text
 * becomes one user message, messages are joined into text. `{{variables}}` found are listed.
 */
export function TemplateEditor({
  value,
  onChange,
  error,
  label = 'Template',
}: {
  value: Template;
  onChange: (t: Template) => void;
  error?: string | null;
  label?: string;
}) {
  const uid = useId();
  const chat = Array.isArray(value);
  const vars = variablesOf(value);
  const setMessage = (i: number, patch: Partial<{ role: ChatRole; content: string }>) =>
    chat && onChange(value.map((m, k) => (k === i ? { ...m, ...patch } : m)));
  return (
    <Stack gap={6}>
      <Group justify="space-between" gap="sm" wrap="wrap">
        <Input.Label
          id={`${uid}-label`}
          htmlFor={chat ? undefined : `${uid}-text`}
          labelElement={chat ? 'div' : 'label'}
        >
          {label}
        </Input.Label>
        <SegmentedControl
          size="xs"
          aria-label={`${label} format`}
          value={chat ? 'chat' : 'text'}
          data={[
            { value: 'text', label: 'Text' },
            { value: 'chat', label: 'Chat messages' },
          ]}
          onChange={(k) =>
            onChange(
              k === 'chat'
                ? chat
                  ? value
                  : [{ role: 'user', content: value }]
                : chat
                  ? value.map((m) => m.content).join('\n\n')
                  : value,
            )
          }
        />
      </Group>
      {chat ? (
        <Stack gap="xs">
          <Stack gap="xs" role="list" aria-labelledby={`${uid}-label`}>
            {value.map((m, i) => (
              <Paper key={i} withBorder p="xs" role="listitem">
                <Group justify="space-between" gap="xs" mb={6}>
                  <NativeSelect
                    size="xs"
                    w={120}
                    aria-label={`Message ${i + 1} role`}
                    data={ROLES}
                    value={m.role}
                    onChange={(e) => {
                      const r = e.currentTarget.value;
                      if (isRole(r)) setMessage(i, { role: r });
                    }}
                  />
                  <ActionIcon
                    variant="subtle"
                    color="gray"
                    aria-label={`Remove message ${i + 1}`}
                    disabled={value.length === 1}
                    onClick={() => onChange(value.filter((_, k) => k !== i))}
                  >
                    <IconTrash size={16} aria-hidden />
                  </ActionIcon>
                </Group>
                <Textarea
                  size="sm"
                  autosize
                  minRows={2}
                  maxRows={12}
                  aria-label={`Message ${i + 1} content`}
                  value={m.content}
                  onChange={(e) => setMessage(i, { content: e.currentTarget.value })}
                />
              </Paper>
            ))}
          </Stack>
          <Button
            size="xs"
            variant="default"
            w="fit-content"
            leftSection={<IconPlus size={14} aria-hidden />}
            onClick={() =>
              onChange([
                ...value,
                { role: value[value.length - 1]?.role === 'user' ? 'assistant' : 'user', content: '' },
              ])
            }
          >
            Add message
          </Button>
        </Stack>
      ) : (
        <Textarea
          id={`${uid}-text`}
          autosize
          minRows={4}
          maxRows={16}
          value={value}
          onChange={(e) => onChange(e.currentTarget.value)}
          styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
        />
      )}
      {error ? (
        <Text size="xs" c="var(--mantine-color-error)" role="alert">
          {error}
        </Text>
      ) : (
        <Text size="xs" c="dimmed">
          {vars.length ? `Variables: ${vars.join(', ')}` : 'Use {{name}} for a variable.'}
        </Text>
      )}
    </Stack>
  );
}
