import type { Knex } from 'knex';

/**
 * What an evaluator reads of a request or a trace: the text that went in and came out (chat
 * shapes of OpenAI, Anthropic and Gemini understood, streams reassembled), the raw JSON for
 * JSONPath variables, metadata (custom properties of a request; a trace's metadata), latency, cost.
 */
export interface EvalTarget {
  kind: 'request' | 'trace';
  id: string;
  projectId: string;
  orgId: string;
  input: string;
  output: string;
  /** What JSONPath variables read: {input, output, metadata} (and `expected` for a dataset item). */
  doc: { input: unknown; output: unknown; metadata: Record<string, unknown>; expected?: unknown };
  /** A dataset item's expected output: what `{{expected}}` and expected-less evaluators compare with. */
  expected?: string;
  latencyMs: number | null;
  costUsd: number | null;
}

/** The fields read of an answer or a stream event (OpenAI, Anthropic, Gemini). */
interface AnswerJson {
  choices?: { delta?: { content?: string }; message?: { content?: unknown }; text?: unknown }[];
  delta?: { text?: string };
  candidates?: { content?: { parts?: { text?: string }[] } }[];
  content?: unknown;
}

const parse = (s: unknown): unknown => {
  if (typeof s !== 'string') return s ?? null;
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
};
const textOfContent = (c: unknown): string =>
  typeof c === 'string'
    ? c
    : Array.isArray(c)
      ? c.map((p) => (typeof p === 'string' ? p : ((p as { text?: string })?.text ?? ''))).join('')
      : '';

/** The last user turn of a chat request, or its prompt/input. */
export function inputText(body: unknown): string {
  if (typeof body === 'string') return body;
  const b = body as {
    messages?: { role?: string; content?: unknown }[];
    contents?: { role?: string; parts?: { text?: string }[] }[];
    prompt?: unknown;
    input?: unknown;
  } | null;
  const user = b?.messages?.filter((m) => m.role === 'user').at(-1);
  if (user) return textOfContent(user.content);
  const g = b?.contents?.filter((m) => m.role !== 'model').at(-1);
  if (g) return (g.parts ?? []).map((p) => p.text ?? '').join('');
  if (typeof b?.prompt === 'string') return b.prompt;
  if (typeof b?.input === 'string') return b.input;
  return body === null || body === undefined ? '' : JSON.stringify(body);
}

/** The answer's text: a chat completion, an Anthropic message, a Gemini candidate, or an SSE stream of any of them. */
export function outputText(body: unknown): string {
  if (typeof body === 'string') {
    if (!body.includes('data:')) return body;
    let text = '';
    for (const line of body.split('\n')) {
      if (!line.startsWith('data:')) continue;
      const ev = parse(line.slice(5).trim()) as AnswerJson | string;
      if (typeof ev !== 'object' || ev === null) continue;
      text +=
        ev.choices?.[0]?.delta?.content ??
        ev.delta?.text ??
        (ev.candidates?.[0]?.content?.parts ?? []).map((p: { text?: string }) => p.text ?? '').join('') ??
        '';
    }
    return text;
  }
  const b = body as AnswerJson | null;
  if (!b) return '';
  if (b.choices?.[0]) return textOfContent(b.choices[0].message?.content ?? b.choices[0].text);
  if (Array.isArray(b.content)) return textOfContent(b.content);
  if (b.candidates?.[0])
    return (b.candidates[0].content?.parts ?? []).map((p: { text?: string }) => p.text ?? '').join('');
  return JSON.stringify(b);
}

const str = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v));

/** The trace columns loadTarget selects (cost: the sum of its spans' cost_usd, null without any). */
interface TraceTargetRow {
  id: string;
  project_id: string;
  org_id: string;
  input: unknown;
  output: unknown;
  metadata: Record<string, unknown> | null;
  duration_ms: number | null;
  cost: number | null;
}

export async function loadTarget(
  db: Knex,
  kind: 'request' | 'trace',
  projectId: string,
  id: string,
): Promise<EvalTarget | null> {
  if (kind === 'request') {
    const r = await db('requests')
      .where({ project_id: projectId, id })
      .first('id', 'org_id', 'project_id', 'request_body', 'response_body', 'properties', 'latency_ms', 'cost_usd');
    if (!r) return null;
    const [input, output] = [parse(r.request_body), parse(r.response_body)];
    return {
      kind,
      id,
      projectId,
      orgId: r.org_id,
      input: inputText(input),
      output: outputText(output),
      doc: { input, output, metadata: r.properties ?? {} },
      latencyMs: r.latency_ms,
      costUsd: r.cost_usd === null ? null : Number(r.cost_usd),
    };
  }
  const { rows } = await db.raw<{ rows: TraceTargetRow[] }>(
    `select t.id, t.project_id, p.org_id, t.input, t.output, t.metadata, t.duration_ms,
            (select sum(cost_usd) from spans s where s.project_id = t.project_id and s.trace_id = t.id) as cost
       from traces t join projects p on p.id = t.project_id where t.project_id = ? and t.id = ?`,
    [projectId, id],
  );
  const t = rows[0];
  if (!t) return null;
  return {
    kind,
    id,
    projectId,
    orgId: t.org_id,
    input: str(t.input),
    output: str(t.output),
    doc: { input: t.input, output: t.output, metadata: t.metadata ?? {} },
    latencyMs: t.duration_ms === null ? null : Number(t.duration_ms),
    costUsd: t.cost === null ? null : Number(t.cost),
  };
}

/**
 * The projects among `projectIds` holding the target (a trace id is the client's: it may be in several). With `spanId`,
 * the span of that trace.
 */
export async function targetProjects(
  db: Knex,
  projectIds: string[],
  t: { kind: 'request' | 'trace'; id: string; spanId?: string | undefined },
): Promise<string[]> {
  if (!projectIds.length) return [];
  const q =
    t.kind === 'request'
      ? db('requests').where({ id: t.id })
      : t.spanId !== undefined
        ? db('spans').where({ trace_id: t.id, id: t.spanId })
        : db('traces').where({ id: t.id });
  return q.whereIn('project_id', projectIds).distinct().pluck('project_id');
}

/** A span as a target: its input and output, evaluated in its trace's name (a judge call joins the trace). */
export async function loadSpanTarget(
  db: Knex,
  projectId: string,
  traceId: string,
  spanId: string,
): Promise<EvalTarget | null> {
  const { rows } = await db.raw<{ rows: (Omit<TraceTargetRow, 'id' | 'cost'> & { cost_usd: string | null })[] }>(
    `select s.project_id, p.org_id, s.input, s.output, s.metadata, s.duration_ms, s.cost_usd
       from spans s join projects p on p.id = s.project_id where s.project_id = ? and s.trace_id = ? and s.id = ?`,
    [projectId, traceId, spanId],
  );
  const s = rows[0];
  if (!s) return null;
  return {
    kind: 'trace',
    id: traceId,
    projectId,
    orgId: s.org_id,
    input: str(s.input),
    output: str(s.output),
    doc: { input: s.input, output: s.output, metadata: s.metadata ?? {} },
    latencyMs: s.duration_ms === null ? null : Number(s.duration_ms),
    costUsd: s.cost_usd === null ? null : Number(s.cost_usd),
  };
}
