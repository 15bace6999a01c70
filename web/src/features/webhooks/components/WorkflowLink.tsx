import { Anchor, Code } from '@mantine/core';
import { workflowUrl } from './temporal';

/** A workflow id linked to the Temporal Web UI, or shown as code when the UI's address is not configured. */
export function WorkflowLink({
  temporalUi,
  workflowId,
  label = 'Temporal UI',
}: {
  temporalUi: string | null;
  workflowId: string;
  label?: string;
}) {
  const href = workflowUrl(temporalUi, workflowId);
  return href ? (
    <Anchor href={href} target="_blank" rel="noreferrer" size="sm" title={workflowId}>
      {label}
    </Anchor>
  ) : (
    <Code style={{ overflowWrap: 'anywhere' }}>{workflowId}</Code>
  );
}
