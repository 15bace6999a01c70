import { IconPlayerStop } from '@tabler/icons-react';
import { useCurrent } from '../../../app/current';
import { ConfirmButton } from '../../../components/ConfirmButton';
import { ErrorState } from '../../../components/QueryState';
import { useCancelExperiment, useCancelPromptExperiment } from '../hooks/useExperiments';

/**
 * "Cancel" on a running experiment or prompt experiment, behind a confirmation. Writers only
 * (viewers see nothing); the items already run keep their outputs and scores.
 */
export function CancelRun({
  kind,
  id,
  name,
  status,
}: {
  kind: 'experiment' | 'prompt experiment';
  id: string;
  name: string;
  status: string;
}) {
  const { canWrite } = useCurrent();
  const one = useCancelExperiment();
  const grid = useCancelPromptExperiment();
  const m = kind === 'experiment' ? one : grid;
  if (!canWrite || (!['running', 'awaiting_outputs'].includes(status) && !m.isPending)) return null;
  return (
    <>
      <ConfirmButton
        leftSection={<IconPlayerStop size={14} aria-hidden />}
        aria-label={`Cancel ${kind} ${name}`}
        title={`Cancel ${kind} “${name}”?`}
        message={
          `Items not run yet are skipped${kind === 'prompt experiment' ? ' in every variant' : ''}; ` +
          'the runs already finished keep their outputs and scores. This cannot be resumed.'
        }
        confirm={`Cancel ${kind}`}
        dismiss="Keep running"
        loading={m.isPending}
        onConfirm={() => m.mutate(id)}
      >
        Cancel
      </ConfirmButton>
      {m.error && <ErrorState error={m.error} title={`Could not cancel the ${kind}`} />}
    </>
  );
}
