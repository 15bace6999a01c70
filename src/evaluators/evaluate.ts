import type Ajv from 'ajv';
import { newAjv } from './json-schema';
import { distance } from 'fastest-levenshtein';
import type { JSONPath as JsonPathFn } from 'jsonpath-plus';
import type { EvaluatorConfig } from './schemas';
import type { EvalTarget } from './targets';

/** An evaluation's outcome: what the score gets. */
export interface Outcome {
  data_type: 'numeric' | 'boolean' | 'categorical';
  value?: number;
  string_value?: string;
  comment: string | null;
  judge?: { requestId: string; costUsd: number | null };
}

/** An evaluation that cannot succeed on retry (bad judge output, a target without the expected value). */
export class EvaluationError extends Error {}

/** jsonpath-plus, loaded on first use like ajv (json-schema.ts): the api's proxy path never needs it. */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded lazily on purpose
const jsonPath = () => (require('jsonpath-plus') as { JSONPath: typeof JsonPathFn }).JSONPath;

/** The first value a JSONPath finds in the target (null when none). */
export function pick(target: EvalTarget, path: string): unknown {
  const found = jsonPath()({ path, json: target.doc as never, wrap: true }) as unknown[];
  return found.length ? found[0] : null;
}
const asText = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v));

export function expectedOf(
  target: EvalTarget,
  c: { expected?: string | undefined; expected_path?: string | undefined },
): string {
  if (c.expected !== undefined) return c.expected;
  if (c.expected_path === undefined) {
    if (target.expected === undefined)
      throw new EvaluationError('nothing to compare with: set expected or expected_path');
    return target.expected;
  }
  const v = pick(target, c.expected_path!);
  if (v === null) throw new EvaluationError(`the target has nothing at ${c.expected_path}`);
  return asText(v);
}

/** The data type of an evaluator's scores. */
export const scoreTypeOf = (e: EvaluatorConfig): Outcome['data_type'] =>
  e.type === 'levenshtein' ? 'numeric' : e.type === 'llm_judge' ? e.config.output.type : 'boolean';

const bool = (ok: boolean, comment: string | null): Outcome => ({
  data_type: 'boolean',
  value: ok ? 1 : 0,
  string_value: ok ? 'true' : 'false',
  comment,
});

/** Checks a config beyond its schema (a regex compiles, a JSON Schema compiles). */
export function checkConfig(e: EvaluatorConfig, ajv = newAjv()): void {
  if (e.type === 'regex') new RegExp(e.config.pattern, e.config.flags);
  if (e.type === 'json_schema') ajv.compile(e.config.schema);
}

/** The evaluators that need no model call: pure functions of the target. */
export function evaluateLocal(e: Exclude<EvaluatorConfig, { type: 'llm_judge' }>, t: EvalTarget, ajv: Ajv): Outcome {
  const text = 'field' in e.config ? (e.config.field === 'input' ? t.input : t.output) : '';
  switch (e.type) {
    case 'regex':
      return bool(new RegExp(e.config.pattern, e.config.flags).test(text), null);
    case 'contains':
      return bool(
        e.config.case_sensitive
          ? text.includes(e.config.value)
          : text.toLowerCase().includes(e.config.value.toLowerCase()),
        null,
      );
    case 'exact_match': {
      const want = expectedOf(t, e.config);
      return bool(e.config.trim ? text.trim() === want.trim() : text === want, null);
    }
    case 'json_schema': {
      let doc: unknown;
      try {
        doc = JSON.parse(text);
      } catch {
        return bool(false, 'not JSON');
      }
      const validate = ajv.compile(e.config.schema);
      const ok = validate(doc) as boolean;
      return bool(ok, ok ? null : ajv.errorsText(validate.errors).slice(0, 1000));
    }
    case 'levenshtein': {
      const want = expectedOf(t, e.config);
      const longest = Math.max(text.length, want.length);
      const similarity = longest === 0 ? 1 : 1 - distance(text, want) / longest;
      return {
        data_type: 'numeric',
        value: Math.round(similarity * 1e6) / 1e6,
        comment: `edit distance ${distance(text, want)}`,
      };
    }
    case 'latency':
      if (t.latencyMs === null) throw new EvaluationError('the target has no latency');
      return bool(t.latencyMs <= e.config.max_ms, `${t.latencyMs} ms`);
    case 'cost':
      if (t.costUsd === null) throw new EvaluationError('the target has no cost (unpriced)');
      return bool(t.costUsd <= e.config.max_usd, `$${t.costUsd}`);
  }
}
