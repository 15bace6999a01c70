import { Code, List, Paper, Stack, Text, Title } from '@mantine/core';
import { ButtonLink } from '../../../components/Links';

/** No calls yet: the three steps from nothing to a first call on this page. */
export function FirstRun() {
  const base = `${location.origin}/proxy/openai/v1`;
  return (
    <Paper withBorder p="xl" radius="md">
      <Stack gap="md" maw={720}>
        <div>
          <Title order={2} size="h3">No calls in this range yet</Title>
          <Text c="dimmed" size="sm">Send calls through the gateway and they appear here with their cost, tokens and latency.</Text>
        </div>
        <List type="ordered" spacing="xs" size="sm">
          <List.Item>Create a project and an API key in Settings (the key is shown once).</List.Item>
          <List.Item>Add your provider key to the project (Settings → Provider keys).</List.Item>
          <List.Item>Point your SDK at the gateway with that key:</List.Item>
        </List>
        <Code block tabIndex={0} aria-label="Example: the openai SDK through the gateway" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>{`import OpenAI from 'openai';

const openai = new OpenAI({
  apiKey: process.env.GATEWAY_API_KEY,
  baseURL: '${base}',
});`}</Code>
        <div><ButtonLink to="/settings">Create a project and a key</ButtonLink></div>
      </Stack>
    </Paper>
  );
}
