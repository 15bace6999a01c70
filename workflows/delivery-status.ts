import type { SearchAttributeUpdatePair } from '@temporalio/common';
import { upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { searchAttributes } from '../src/temporal/names';
import type { DeliveryStatus } from '../src/webhooks/policy';

const { DeliveryStatus: STATUS, AttemptCount: ATTEMPTS } = searchAttributes;

/**
 * Keeps a delivery workflow's `DeliveryStatus` and `AttemptCount` search attributes equal to its
 * record, so the Web UI and `temporal workflow list` answer "what is failing" (docs/operators.md).
 *
 * The starter sets the initial values (pending, 0). An upsert is a workflow command (a history
 * event and a visibility write), so one is issued only when a value changes: a delivery that
 * succeeds at once costs one, in the workflow task that completes it.
 *
 * Only workflows started with `DeliveryStatus` upsert at all: one started before these attributes
 * existed has no upsert in its history, and replaying it must issue none (this reads the start
 * event, so it is deterministic and needs no `patched()` marker).
 */
export function deliveryStatusTracker(): (status: DeliveryStatus, attempts?: number) => void {
  if (workflowInfo().typedSearchAttributes.get(STATUS) === undefined) return () => undefined;
  return (status, attempts) => {
    const current = workflowInfo().typedSearchAttributes;
    const changes: SearchAttributeUpdatePair[] = [];
    if (current.get(STATUS) !== status) changes.push({ key: STATUS, value: status });
    if (attempts !== undefined && current.get(ATTEMPTS) !== attempts) changes.push({ key: ATTEMPTS, value: attempts });
    if (changes.length) upsertSearchAttributes(changes);
  };
}
