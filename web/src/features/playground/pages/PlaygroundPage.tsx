import { Badge, Button, Code, Group, NativeSelect, Paper, SimpleGrid, Stack, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconPlayerPlay } from '@tabler/icons-react';
import { PROVIDERS, type Provider } from '../../../api/enums';
import { useCurrent } from '../../../app/current';
import { Page } from '../../../components/Page';
import { ErrorState } from '../../../components/QueryState';
import { useProjects } from '../../../hooks/useProjects';
import { useSession } from '../../../session/context';
import * as fmt from '../../../lib/format';
import { usePlaygroundRun, type Variant } from '../hooks/usePlaygroundRun';

const isProvider = (p: string): p is Provider => PROVIDERS.some((x) => x === p);

/** `openai/gpt-4o-mini, anthropic/claude-3-5-haiku-latest` → up to four variants, or why not. */
function parseVariants(s: string): Variant[] | string {
  const parts = s.split(',').map((m) => m.trim()).filter(Boolean);
  if (parts.length === 0) return 'Name at least one provider/model';
  if (parts.length > 4) return 'At most 4 variants';
  const out: Variant[] = [];
  for (const p of parts) {
    const [provider = '', ...model] = p.split('/');
    if (!isProvider(provider) || model.length === 0) return `“${p}” is not provider/model (providers: ${PROVIDERS.join(', ')})`;
    out.push({ provider, model: model.join('/') });
  }
  return out;
}

/** The playground: up to 4 variants side by side, their output streamed as it arrives. */
export function PlaygroundPage() {
  const projects = useProjects();
  const { projectId } = useSession();
  const { canWrite } = useCurrent();
  const { outputs, error, running, run } = usePlaygroundRun();
  const form = useForm({
    initialValues: { prompt: 'Say hello in one word.', project_id: '', models: 'openai/gpt-4o-mini' },
    validate: { prompt: (v) => (v.trim() ? null : 'Write a prompt'), models: (v) => { const r = parseVariants(v); return typeof r === 'string' ? r : null; } },
  });
  // The project picked here, else the one chosen in the shell, else the first.
  const project = form.values.project_id || projectId || projects.data?.[0]?.id || '';
  const submit = form.onSubmit((v) => {
    const variants = parseVariants(v.models);
    if (typeof variants !== 'string') void run({ prompt: v.prompt, projectId: project || undefined, variants });
  });
  return (
    <Page title="Playground" description="Run a prompt on several models at once; each call lands in the request log with its cost.">
      <Paper withBorder p="md" component="form" onSubmit={submit}>
        <Stack gap="sm">
          <Textarea label="Prompt" autosize minRows={3} {...form.getInputProps('prompt')} />
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
            <NativeSelect label="Project" name="project_id" value={project} onChange={(e) => form.setFieldValue('project_id', e.currentTarget.value)} data={(projects.data ?? []).map((p) => ({ value: p.id, label: p.name }))} />
            <TextInput label="Variants" description="provider/model, comma-separated (up to 4)" {...form.getInputProps('models')} />
          </SimpleGrid>
          <Group>
            <Button type="submit" loading={running} disabled={!canWrite} leftSection={<IconPlayerPlay size={16} aria-hidden="true" />}>Run</Button>
            {!canWrite && <Text size="sm" c="dimmed">Running needs the editor or admin role.</Text>}
          </Group>
          {error && <ErrorState error={error} title="The run failed" />}
        </Stack>
      </Paper>
      <SimpleGrid cols={{ base: 1, md: Math.min(2, Math.max(1, outputs.length)), xl: Math.max(1, outputs.length) }} spacing="md" aria-live="polite">
        {outputs.map((o, i) => (
          <Paper key={i} withBorder p="md" component="article" aria-label={`Variant ${i + 1}`}>
            <Stack gap="xs">
              <Group justify="space-between" gap="xs"><Title order={2} size="h5">{o.label}</Title>{o.result?.error && <Badge color="red" variant="light">error {o.result.error.status}</Badge>}</Group>
              <Code block data-testid={`variant-${i}`} style={{ whiteSpace: 'pre-wrap', minHeight: 60 }}>{o.result?.error ? o.result.error.message : o.text || (running ? '…' : '')}</Code>
              {o.result && <Text size="xs" c="dimmed">{fmt.int(o.result.usage.total_tokens)} tokens · {fmt.ms(o.result.latency_ms)} · {fmt.usd(o.result.cost_usd)}</Text>}
            </Stack>
          </Paper>
        ))}
      </SimpleGrid>
    </Page>
  );
}
