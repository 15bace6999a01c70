import { Button, Group, Paper, Select, Stack, Text, TextInput } from '@mantine/core';
import type { UseFormReturnType } from '@mantine/form';
import { useState } from 'react';
import type { Schema } from '../../../api/types';
import { ErrorState } from '../../../components/QueryState';
import { time, usd } from '../../../lib/format';
import { useSession } from '../../../session/context';
import { ScoreValue } from '../../scores/components/ScoreParts';
import { usePreviewEvaluator, useRecentRequests } from '../hooks/useEvaluators';
import type { EvaluatorValues } from '../lib/evaluatorForm';
import { inputExcerpt, isRequestId, previewBody, previewErrors } from '../lib/preview';

/**
 * Runs the form's evaluator once on a chosen request, as an eval run would, and shows the score it
 * would write (none is written).
 */
export function EvaluatorPreview({ form }: { form: UseFormReturnType<EvaluatorValues> }) {
  const { projectId } = useSession();
  const [requestId, setRequestId] = useState('');
  const recent = useRecentRequests(true);
  const preview = usePreviewEvaluator();
  const options = (recent.data ?? []).map((r) => ({
    value: r.id,
    label: [r.model ?? r.provider, time(r.created_at), inputExcerpt(r.request_body)].filter(Boolean).join(' · '),
  }));
  const run = () => {
    const errors = previewErrors(form.values);
    if (Object.keys(errors).length) return form.setErrors(errors);
    preview.mutate(previewBody(form.values, projectId ?? undefined, requestId));
  };
  const out = preview.data;
  return (
    <Paper withBorder p="sm" radius="md" component="section" aria-label="Preview">
      <Stack gap="xs">
        <div>
          <Text fw={600} size="sm">
            Preview
          </Text>
          <Text size="xs" c="dimmed">
            Run this evaluator on one request; no score is written.
          </Text>
        </div>
        <Select
          label="Recent request"
          placeholder={recent.isLoading ? 'Loading…' : options.length ? 'Pick a request' : 'No requests yet'}
          data={options}
          value={options.some((o) => o.value === requestId) ? requestId : null}
          onChange={(id) => setRequestId(id ?? '')}
          searchable
          nothingFoundMessage="No match"
        />
        <Group align="flex-end" gap="sm" wrap="nowrap">
          <TextInput
            label="…or request id"
            placeholder="Paste a request id"
            value={requestId}
            onChange={(e) => setRequestId(e.currentTarget.value)}
            styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
            style={{ flex: 1, minWidth: 0 }}
          />
          <Button variant="light" onClick={run} loading={preview.isPending} disabled={!isRequestId(requestId)}>
            Preview
          </Button>
        </Group>
        {preview.error && <ErrorState error={preview.error} title="The preview failed" />}
        {out && !preview.error && <Outcome out={out} />}
      </Stack>
    </Paper>
  );
}

function Outcome({ out }: { out: Schema<'EvaluatorPreview'> }) {
  // ScoreValue reads only the value fields of a score.
  const score = { data_type: out.data_type, value: out.value, string_value: out.string_value } as Schema<'Score'>;
  return (
    <Stack gap={6} aria-label="Preview result" data-testid="preview-result">
      <Group gap="sm" wrap="wrap">
        <Text size="sm" fw={500}>
          Score
        </Text>
        <ScoreValue s={score} />
        {out.judge && (
          <Text size="xs" c="dimmed">
            judge call {usd(out.judge.cost_usd)}
          </Text>
        )}
      </Group>
      {out.comment && (
        <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
          {out.comment}
        </Text>
      )}
      <Text size="xs" c="dimmed" lineClamp={2}>
        Input: {out.target.input || '—'}
      </Text>
      <Text size="xs" c="dimmed" lineClamp={3}>
        Output: {out.target.output || '—'}
      </Text>
    </Stack>
  );
}
