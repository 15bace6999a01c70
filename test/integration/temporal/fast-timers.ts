import { workflowInfo, type WorkflowInterceptorsFactory } from '@temporalio/workflow';

/**
 * Test-only workflow interceptor (bundled with the real workflows): durable timers of at most
 * 50 ms, so a delivery goes through its five attempts and 1/2/4/8-minute waits in a moment on
 * the real dev server. Workflows on a task queue ending in `-real-timers` keep their timers.
 */
export const interceptors: WorkflowInterceptorsFactory = () => ({
  outbound: [
    {
      startTimer: (input, next) =>
        workflowInfo().taskQueue.endsWith('-real-timers')
          ? next(input)
          : next({ ...input, durationMs: Math.min(input.durationMs, 50) }),
    },
  ],
});
