import { CancelledFailure, Context } from '@temporalio/activity';
import { finishRecovery, recoverPage, type PageInput, type PageResult } from '../src/webhooks/recoveries/run';
import type { ActivityDeps } from './deps';

export type { PageInput, PageResult } from '../src/webhooks/recoveries/run';

/** The activities of a webhook recovery (src/webhooks/recoveries/run.ts does the work). */
export function webhookRecoveryActivities(deps: ActivityDeps) {
  return {
    /**
     * One page of the recovery. Heartbeats every item and every 2 s (a receiver may take 10 s), so a
     * dead worker is noticed within the heartbeat timeout and the page runs again elsewhere; a
     * cancel arrives with a heartbeat, lets the sends in flight finish, then ends the page.
     */
    async recoverWebhookPage(input: PageInput): Promise<PageResult> {
      const ctx = Context.current();
      const beat = () => ctx.heartbeat();
      const timer = setInterval(beat, 2_000);
      try {
        const page = await recoverPage(deps, input, ctx.cancellationSignal, beat);
        if (ctx.cancellationSignal.aborted) throw new CancelledFailure('recovery cancelled');
        return page;
      } finally {
        clearInterval(timer);
      }
    },

    finishWebhookRecovery: (recoveryId: string, status: 'completed' | 'cancelled' | 'failed', error?: string) =>
      finishRecovery(deps.db, recoveryId, status, error),
  };
}

export type WebhookRecoveryActivities = ReturnType<typeof webhookRecoveryActivities>;
