import { Badge, Code, Group, Paper, SegmentedControl, SimpleGrid, Stack, Text } from '@mantine/core';
import { IconPhoto, IconTool, IconArrowBackUp, IconBulb } from '@tabler/icons-react';
import { useMemo, useState, type ReactNode } from 'react';
import { JsonBlock } from '../Json';
import classes from './Conversation.module.css';
import { toConversation, type Message, type Part } from './parse';

const FORMAT_NAMES = {
  openai: 'OpenAI chat',
  responses: 'OpenAI responses',
  anthropic: 'Anthropic messages',
  gemini: 'Gemini contents',
} as const;
const ROLE_COLORS: Record<string, string> = {
  system: 'gray',
  developer: 'gray',
  user: 'blue',
  assistant: 'teal',
  model: 'teal',
  tool: 'grape',
};

/**
 * A call's bodies read as a conversation (roles, tool calls and results, thinking, images as
 * placeholders; a streamed answer put back together), with a toggle to the raw JSON. A shape no
 * reader knows, or a body that was not logged, shows as recorded.
 */
export function Conversation({
  request,
  response,
  provider,
  empty = 'Not logged',
}: {
  request: unknown;
  response: unknown;
  provider?: string;
  empty?: string;
}) {
  const conversation = useMemo(() => toConversation(request, response, provider), [request, response, provider]);
  const [view, setView] = useState<'chat' | 'raw'>('chat');
  const raw = (
    <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="lg">
      <Stack gap={6}>
        <Text fw={600} size="sm">
          Request body
        </Text>
        <JsonBlock label="Request body" value={request} empty={empty} maxHeight={520} />
      </Stack>
      <Stack gap={6}>
        <Text fw={600} size="sm">
          Response body
        </Text>
        <JsonBlock label="Response body" value={response} empty={empty} maxHeight={520} />
      </Stack>
    </SimpleGrid>
  );
  if (!conversation) {
    return (
      <Stack gap="sm">
        {request !== undefined && request !== null && request !== '' && (
          <Text size="sm" c="dimmed">
            Not a chat format the dashboard reads (OpenAI, Anthropic or Gemini): shown as recorded.
          </Text>
        )}
        {raw}
      </Stack>
    );
  }
  return (
    <Stack gap="sm">
      <Group justify="space-between" gap="sm">
        <Text size="sm" c="dimmed">
          {FORMAT_NAMES[conversation.format]}
          {conversation.streamEvents ? ` · streamed, put together from ${conversation.streamEvents} events` : ''}
        </Text>
        <SegmentedControl
          size="xs"
          aria-label="Show the conversation or the raw JSON"
          value={view}
          onChange={(v) => setView(v === 'raw' ? 'raw' : 'chat')}
          data={[
            { value: 'chat', label: 'Conversation' },
            { value: 'raw', label: 'Raw JSON' },
          ]}
        />
      </Group>
      {view === 'raw' ? (
        raw
      ) : (
        <Stack gap="sm" role="list" aria-label="Conversation">
          {conversation.input.map((m, i) => (
            <Turn key={`in-${i}`} message={m} />
          ))}
          {conversation.output.length ? (
            conversation.output.map((m, i) => <Turn key={`out-${i}`} message={m} response />)
          ) : (
            <Paper withBorder p="sm" role="listitem">
              <Text size="sm" c="dimmed">
                No completion in the response{response ? ': see the raw JSON.' : ' (not logged).'}
              </Text>
            </Paper>
          )}
        </Stack>
      )}
    </Stack>
  );
}

function Turn({ message, response = false }: { message: Message; response?: boolean }) {
  const color = ROLE_COLORS[message.role] ?? 'gray';
  return (
    <Paper
      withBorder
      p="sm"
      role="listitem"
      className={`${classes.turn} ${response ? classes.response : ''}`}
      style={{ borderLeftColor: `var(--mantine-color-${color}-6)` }}
      data-role={message.role}
    >
      <Group gap="xs" mb={6}>
        <Badge size="sm" variant="light" color={color}>
          {message.role}
        </Badge>
        {response && (
          <Text size="xs" c="dimmed" fw={600} tt="uppercase">
            response
          </Text>
        )}
      </Group>
      <Stack gap="xs">
        {message.parts.length ? (
          message.parts.map((p, i) => <PartView key={i} part={p} />)
        ) : (
          <Text size="sm" c="dimmed" fs="italic">
            (empty)
          </Text>
        )}
      </Stack>
    </Paper>
  );
}

function Box({ icon, title, children }: { icon: ReactNode; title: ReactNode; children?: ReactNode }) {
  return (
    <div className={classes.box}>
      <Group gap={6} wrap="nowrap" className={classes.boxTitle}>
        {icon}
        <Text size="xs" fw={600}>
          {title}
        </Text>
      </Group>
      {children}
    </div>
  );
}

const json = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v, null, 2));

function PartView({ part }: { part: Part }) {
  switch (part.type) {
    case 'text':
      return (
        <Text size="sm" className={classes.text}>
          {part.text}
        </Text>
      );
    case 'image':
      return <Box icon={<IconPhoto size={14} aria-hidden />} title={part.label} />;
    case 'thinking':
      return (
        <Box icon={<IconBulb size={14} aria-hidden />} title="Thinking">
          <Text size="sm" c="dimmed" className={classes.text}>
            {part.text}
          </Text>
        </Box>
      );
    case 'tool_call':
      return (
        <Box
          icon={<IconTool size={14} aria-hidden />}
          title={
            <>
              Tool call: <Code>{part.name}</Code>
              {part.id && (
                <Text span size="xs" c="dimmed">
                  {' '}
                  {part.id}
                </Text>
              )}
            </>
          }
        >
          <Code block className={classes.code}>
            {json(part.input)}
          </Code>
        </Box>
      );
    case 'tool_result':
      return (
        <Box
          icon={<IconArrowBackUp size={14} aria-hidden />}
          title={
            <>
              Tool result
              {part.name && (
                <>
                  : <Code>{part.name}</Code>
                </>
              )}
              {part.id && (
                <Text span size="xs" c="dimmed">
                  {' '}
                  {part.id}
                </Text>
              )}
              {part.error && (
                <Badge ml={6} size="xs" color="red" variant="light">
                  error
                </Badge>
              )}
            </>
          }
        >
          <Stack gap={4}>
            {part.content.map((c, i) => (
              <PartView key={i} part={c} />
            ))}
          </Stack>
        </Box>
      );
    default:
      return (
        <Box icon={null} title={part.label}>
          <Code block className={classes.code}>
            {json(part.value)}
          </Code>
        </Box>
      );
  }
}
