import {
  Badge,
  Button,
  Code,
  Group,
  NativeSelect,
  Paper,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconPlayerPlay } from '@tabler/icons-react';
import { getRouteApi } from '@tanstack/react-router';
import { useEffect, useState } from 'react';
import { PROVIDERS, type Provider } from '../../../api/enums';
import { useCurrent } from '../../../app/current';
import { Page } from '../../../components/Page';
import { ErrorState, Loading } from '../../../components/QueryState';
import { useProjects } from '../../../hooks/useProjects';
import { useSession } from '../../../session/context';
import * as fmt from '../../../lib/format';
import { TemplateEditor } from '../../prompts/components/TemplateEditor';
import { usePromptVersion } from '../../prompts/hooks/usePrompts';
import {
  editable,
  providerOf,
  sameTemplate,
  templateError,
  variablesOf,
  type Template,
} from '../../prompts/lib/template';
import { FromVersion } from '../components/FromVersion';
import { usePlaygroundRun, type Variant } from '../hooks/usePlaygroundRun';

const route = getRouteApi('/app/playground');
const isProvider = (p: string): p is Provider => PROVIDERS.some((x) => x === p);

/** `openai/gpt-4o-mini, anthropic/claude-3-5-haiku-latest` → up to four variants, or why not. */
function parseVariants(s: string): Variant[] | string {
  const parts = s
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean);
  if (parts.length === 0) return 'Name at least one provider/model';
  if (parts.length > 4) return 'At most 4 variants';
  const out: Variant[] = [];
  for (const p of parts) {
    const [provider = '', ...model] = p.split('/');
    if (!isProvider(provider) || model.length === 0)
      return `“${p}” is not provider/model (providers: ${PROVIDERS.join(', ')})`;
    out.push({ provider, model: model.join('/') });
  }
  return out;
}

interface Values {
  template: Template;
  project_id: string;
  models: string;
  variables: Record<string, string>;
}

/**
 * The playground: up to 4 variants side by side, their output streamed as it arrives; `?prompt=&version=` starts from a
 * stored version.
 */
export function PlaygroundPage() {
  const projects = useProjects();
  const { projectId } = useSession();
  const { canWrite } = useCurrent();
  const search = route.useSearch();
  const seed = usePromptVersion(search.prompt, search.version);
  const { outputs, error, running, run } = usePlaygroundRun();
  const form = useForm<Values>({
    initialValues: { template: 'Say hello in one word.', project_id: '', models: 'openai/gpt-4o-mini', variables: {} },
    validate: {
      template: templateError,
      models: (v) => {
        const r = parseVariants(v);
        return typeof r === 'string' ? r : null;
      },
    },
  });
  const [seeded, setSeeded] = useState<string | null>(null);
  const s = seed.data;
  useEffect(() => {
    if (!s || seeded === s.id) return;
    form.setValues({
      template: editable(s.template),
      project_id: s.project_id,
      ...(s.model ? { models: `${providerOf(s.model)}/${s.model}` } : {}),
      variables: Object.fromEntries(s.variables.map((v) => [v, ''])),
    });
    setSeeded(s.id);
  }, [s, seeded, form]);
  // The project picked here, else the one chosen in the shell, else the first.
  const project = form.values.project_id || projectId || projects.data?.[0]?.id || '';
  const vars = variablesOf(form.values.template);
  const changed = !s || !sameTemplate(form.values.template, editable(s.template));
  const submit = form.onSubmit((v) => {
    const variants = parseVariants(v.models);
    if (typeof variants === 'string') return;
    const variables = Object.fromEntries(vars.map((k) => [k, v.variables[k] ?? '']));
    void run({
      template: v.template,
      ...(s && !changed ? { ref: s.id } : {}),
      ...(s?.parameters ? { parameters: s.parameters } : {}),
      variables,
      projectId: project || undefined,
      variants,
    });
  });
  if (search.prompt && seed.isPending) return <Loading />;
  return (
    <Page
      title="Playground"
      description="Run a prompt on several models at once; each call lands in the request log with its cost."
    >
      {seed.error && <ErrorState error={seed.error} title="Could not open the prompt version" />}
      {s && (
        <FromVersion
          version={s}
          changed={changed}
          template={form.values.template}
          model={parseVariantsOr(form.values.models)}
          canWrite={canWrite}
        />
      )}
      <Paper withBorder p="md" component="form" onSubmit={submit}>
        <Stack gap="sm">
          <TemplateEditor
            label="Prompt"
            value={form.values.template}
            onChange={(t) => form.setFieldValue('template', t)}
            error={typeof form.errors.template === 'string' ? form.errors.template : null}
          />
          {vars.length > 0 && (
            <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
              {vars.map((k) => (
                <TextInput
                  key={k}
                  label={`{{${k}}}`}
                  value={form.values.variables[k] ?? ''}
                  onChange={(e) =>
                    form.setFieldValue('variables', { ...form.values.variables, [k]: e.currentTarget.value })
                  }
                />
              ))}
            </SimpleGrid>
          )}
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
            <NativeSelect
              label="Project"
              name="project_id"
              value={project}
              onChange={(e) => form.setFieldValue('project_id', e.currentTarget.value)}
              data={(projects.data ?? []).map((p) => ({ value: p.id, label: p.name }))}
            />
            <TextInput
              label="Variants"
              description="provider/model, comma-separated (up to 4)"
              {...form.getInputProps('models')}
            />
          </SimpleGrid>
          <Group>
            <Button
              type="submit"
              loading={running}
              disabled={!canWrite}
              leftSection={<IconPlayerPlay size={16} aria-hidden="true" />}
            >
              Run
            </Button>
            {!canWrite && (
              <Text size="sm" c="dimmed">
                Running needs the editor or admin role.
              </Text>
            )}
          </Group>
          {error && <ErrorState error={error} title="The run failed" />}
        </Stack>
      </Paper>
      <SimpleGrid
        cols={{ base: 1, md: Math.min(2, Math.max(1, outputs.length)), xl: Math.max(1, outputs.length) }}
        spacing="md"
        aria-live="polite"
      >
        {outputs.map((o, i) => (
          <Paper key={i} withBorder p="md" component="article" aria-label={`Variant ${i + 1}`}>
            <Stack gap="xs">
              <Group justify="space-between" gap="xs">
                <Title order={2} size="h5">
                  {o.label}
                </Title>
                {o.result?.error && (
                  <Badge color="red" variant="light">
                    error {o.result.error.status}
                  </Badge>
                )}
              </Group>
              <Code block data-testid={`variant-${i}`} style={{ whiteSpace: 'pre-wrap', minHeight: 60 }}>
                {o.result?.error ? o.result.error.message : o.text || (running ? '…' : '')}
              </Code>
              {o.result && (
                <Text size="xs" c="dimmed">
                  {fmt.int(o.result.usage.total_tokens)} tokens · {fmt.ms(o.result.latency_ms)} ·{' '}
                  {fmt.usd(o.result.cost_usd)}
                </Text>
              )}
            </Stack>
          </Paper>
        ))}
      </SimpleGrid>
    </Page>
  );
}

/** The first variant's model, for "save as new version". */
function parseVariantsOr(s: string): string | undefined {
  const r = parseVariants(s);
  return typeof r === 'string' ? undefined : r[0]?.model;
}
