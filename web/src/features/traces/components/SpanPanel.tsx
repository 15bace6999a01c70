import { Group, Paper, Stack, Text, Title } from '@mantine/core';
import type { Schema } from '../../../api/types';
import { JsonBlock } from '../../../components/Json';
import { StatusBadge } from '../../../components/StatusBadge';
import * as fmt from '../../../lib/format';

/** The chosen span: what went in and came out, its model, tokens, cost and timing. */
export function SpanPanel({ span }: { span: Schema<'Span'> }) {
  const meta = Object.keys(span.metadata).length > 0 ? span.metadata : null;
  return (
    <Paper withBorder p="md" className="span">
      <Stack gap="sm">
        <Group justify="space-between" wrap="nowrap" gap="sm">
          <Title order={2} size="h4" style={{ overflowWrap: 'anywhere' }}>
            {span.name ?? span.id}
          </Title>
          {span.status && <StatusBadge value={span.status} />}
        </Group>
        <Text size="sm" c="dimmed">
          {[
            span.span_type,
            span.model,
            span.total_tokens !== null && `${fmt.int(span.total_tokens)} tokens`,
            span.cost_usd !== null && fmt.usd(span.cost_usd),
            span.duration_ms !== null && fmt.ms(span.duration_ms),
          ]
            .filter(Boolean)
            .join(' · ')}
        </Text>
        <Title order={3} size="h6">
          Input
        </Title>
        <JsonBlock label="Span input" value={span.input} empty="No input recorded" />
        <Title order={3} size="h6">
          Output
        </Title>
        <JsonBlock label="Span output" value={span.output} empty="No output recorded" />
        {meta && (
          <>
            <Title order={3} size="h6">
              Metadata
            </Title>
            <JsonBlock label="Span metadata" value={meta} />
          </>
        )}
      </Stack>
    </Paper>
  );
}
