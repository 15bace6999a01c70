import { oneOf, search, text } from '../../lib/search';

export const TRACE_STATUSES = ['running', 'completed', 'error'] as const;
export const tracesSearch = search({ status: oneOf(TRACE_STATUSES), name: text() });

/** `/traces/<id>?span=<span id>`: the trace with that span selected (a span score links here). */
export const traceSearch = search({ span: text() });
