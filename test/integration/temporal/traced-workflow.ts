import { proxyActivities } from '@temporalio/workflow';

/**
 * A customer's own workflow, as in docs/temporal-tracing.md: two activities, the second calling a
 * model through the gateway's proxy. Bundled with the OpenTelemetry workflow interceptors by the
 * plugin in test/integration/temporal/otel-tracing.test.ts.
 */
export type LinkWith = 'traceparent' | 'sdk';

export interface AgentActivities {
  retrieveDocs(question: string): Promise<string[]>;
  answerWithModel(question: string, docs: string[], linkWith: LinkWith): Promise<string>;
}

const { retrieveDocs, answerWithModel } = proxyActivities<AgentActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 1 },
});

export async function supportAgentWorkflow(question: string, linkWith: LinkWith): Promise<string> {
  const docs = await retrieveDocs(question);
  return answerWithModel(question, docs, linkWith);
}
