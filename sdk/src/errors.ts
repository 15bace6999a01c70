import type { OpKind } from './wire';

export type IngestErrorKind =
  | 'network' // connection refused/reset, DNS, ...
  | 'timeout' // the attempt exceeded timeoutMs
  | 'http' // the server answered with a non-2xx status
  | 'item' // a batch item was rejected (status in the per-item result)
  | 'queue_full'
  | 'buffer_overflow'
  | 'internal';

export interface OperationRef {
  op: OpKind;
  id: string;
}

/** The one error type handed to `onError`. It is never thrown into caller code. */
export class IngestError extends Error {
  override readonly name = 'IngestError';
  readonly kind: IngestErrorKind;
  /** HTTP status (or per-item status) when there was one. */
  readonly status: number | undefined;
  /** Whether this failure class is retried (5xx, network, timeout). */
  readonly retryable: boolean;
  /** Attempts made before giving up. */
  attempts: number;
  /** The operations that were dropped with this error. */
  readonly operations: OperationRef[];

  constructor(
    kind: IngestErrorKind,
    message: string,
    init: { status?: number; retryable?: boolean; operations?: OperationRef[]; cause?: unknown } = {},
  ) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.kind = kind;
    this.status = init.status;
    this.retryable = init.retryable ?? false;
    this.attempts = 0;
    this.operations = init.operations ?? [];
  }
}
