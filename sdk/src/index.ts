export { GatewayClient, DEFAULTS } from './client';
export { Trace, Span, errorOutput } from './handles';
export { IngestError, type IngestErrorKind, type OperationRef } from './errors';
export { seededRandom, validateSampleRate } from './sampler';
export { capPayload, type TruncatedPayload } from './truncate';
export { wrapOpenAI, type OpenAILike, type WrapOpenAIOptions } from './integrations/openai';
export { wrapTool, type WrapToolOptions } from './integrations/tool';
export type * from './types';
export {
  traceLinkHeaders,
  temporalOtelPluginOptions,
  toSdk2Span,
  type SpanLike,
  type SpanProcessorLike,
} from './integrations/opentelemetry';
