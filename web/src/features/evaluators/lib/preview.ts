import type { PreviewBody } from '../hooks/useEvaluators';
import { toBody, validate, type EvaluatorValues } from './evaluatorForm';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isRequestId = (s: string) => UUID.test(s.trim());

/** The form's errors that stop a preview: all but the name's (a preview needs none). */
export function previewErrors(v: EvaluatorValues) {
  const errors = validate(v);
  delete errors.name;
  return errors;
}

/** The preview's body: the evaluator as it would be created, without its name, and the request. */
export function previewBody(v: EvaluatorValues, projectId: string | undefined, requestId: string): PreviewBody {
  const { name: _name, ...definition } = toBody({ ...v, name: v.name || 'preview' }, projectId);
  return { ...definition, target: { request_id: requestId.trim().toLowerCase() } } as PreviewBody;
}

const text = (c: unknown): string =>
  typeof c === 'string'
    ? c
    : Array.isArray(c)
      ? c.map((p) => (typeof p === 'string' ? p : ((p as { text?: unknown })?.text ?? ''))).join(' ')
      : '';

/** A request's last user turn, short: what tells the recent requests apart in the picker. */
export function inputExcerpt(body: string | null | undefined, max = 60): string {
  if (!body) return '';
  let said = body;
  try {
    const b = JSON.parse(body) as { messages?: { role?: string; content?: unknown }[]; prompt?: unknown };
    said = text(b.messages?.filter((m) => m.role === 'user').at(-1)?.content ?? b.prompt) || body;
  } catch {
    // not JSON: the body as it is
  }
  said = said.replace(/\s+/g, ' ').trim();
  return said.length > max ? `${said.slice(0, max - 1)}…` : said;
}
