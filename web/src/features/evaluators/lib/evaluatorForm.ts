import type { Schema } from '../../../api/types';
import type { EvaluatorBody } from '../hooks/useEvaluators';

/** The evaluator types and the judge's providers, checked against the contract both ways. */
export type EvaluatorType = EvaluatorBody['type'];
type Exactly<T, L extends readonly T[]> = [T] extends [L[number]] ? L : never;
const types = [
  'llm_judge',
  'regex',
  'contains',
  'exact_match',
  'json_schema',
  'levenshtein',
  'latency',
  'cost',
] as const satisfies readonly EvaluatorType[];
export const EVALUATOR_TYPES: Exactly<EvaluatorType, typeof types> = types;

type Judge = Extract<EvaluatorBody, { type: 'llm_judge' }>['config'];
export type JudgeProvider = Judge['provider'];
const providers = [
  'openai',
  'anthropic',
  'mistral',
  'groq',
  'deepseek',
  'xai',
  'together',
  'openrouter',
  'ollama',
] as const satisfies readonly JudgeProvider[];
export const JUDGE_PROVIDERS: Exactly<JudgeProvider, typeof providers> = providers;
export type JudgeOutput = Judge['output']['type'];
export const JUDGE_OUTPUTS = ['numeric', 'boolean', 'categorical'] as const satisfies readonly JudgeOutput[];

export const TYPE_HELP: Record<EvaluatorType, string> = {
  llm_judge: 'A model reads the call and answers with a score, following your template.',
  regex: 'Passes when the text matches a regular expression.',
  contains: 'Passes when the text contains a value.',
  exact_match: 'Passes when the text equals the expected value.',
  json_schema: 'Passes when the text parses as JSON valid against a schema.',
  levenshtein: 'A similarity from 0 to 1 against the expected value.',
  latency: 'Passes when the call took at most this long.',
  cost: 'Passes when the call cost at most this much.',
};

/** Every field of every type, flat, as the form holds them (strings where the user types). */
export interface EvaluatorValues {
  name: string;
  description: string;
  type: EvaluatorType;
  field: 'output' | 'input';
  pattern: string;
  flags: string;
  value: string;
  case_sensitive: boolean;
  expected: string;
  expected_path: string;
  trim: boolean;
  schema: string;
  max_ms: string;
  max_usd: string;
  provider: JudgeProvider;
  model: string;
  template: string;
  output: JudgeOutput;
  min: string;
  max: string;
  categories: string;
}

export const EMPTY: EvaluatorValues = {
  name: '',
  description: '',
  type: 'contains',
  field: 'output',
  pattern: '',
  flags: '',
  value: '',
  case_sensitive: false,
  expected: '',
  expected_path: '',
  trim: true,
  schema: '{\n  "type": "object"\n}',
  max_ms: '2000',
  max_usd: '0.01',
  provider: 'openai',
  model: 'gpt-4o-mini',
  template:
    'Rate how well the answer responds to the question, from 1 to 5.\n\nQuestion: {{input}}\nAnswer: {{output}}',
  output: 'numeric',
  min: '1',
  max: '5',
  categories: 'good, bad',
};

const str = (v: unknown, d: string) => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : d);
const bool = (v: unknown, d: boolean) => (typeof v === 'boolean' ? v : d);
const obj = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** An existing evaluator as form values. */
export function fromEvaluator(e: Schema<'Evaluator'>): EvaluatorValues {
  const c = obj(e.config);
  const out = obj(c.output);
  const type = EVALUATOR_TYPES.find((t) => t === e.type) ?? 'contains';
  return {
    ...EMPTY,
    name: e.name,
    description: e.description ?? '',
    type,
    field: c.field === 'input' ? 'input' : 'output',
    pattern: str(c.pattern, ''),
    flags: str(c.flags, ''),
    value: str(c.value, ''),
    case_sensitive: bool(c.case_sensitive, false),
    expected: str(c.expected, ''),
    expected_path: str(c.expected_path, ''),
    trim: bool(c.trim, true),
    schema: c.schema ? JSON.stringify(c.schema, null, 2) : EMPTY.schema,
    max_ms: str(c.max_ms, EMPTY.max_ms),
    max_usd: str(c.max_usd, EMPTY.max_usd),
    provider: JUDGE_PROVIDERS.find((p) => p === c.provider) ?? 'openai',
    model: str(c.model, EMPTY.model),
    template: str(c.template, EMPTY.template),
    output: JUDGE_OUTPUTS.find((o) => o === out.type) ?? 'numeric',
    min: str(out.min, EMPTY.min),
    max: str(out.max, EMPTY.max),
    categories: Array.isArray(out.categories) ? out.categories.join(', ') : EMPTY.categories,
  };
}

const num = (s: string) => (s.trim() === '' ? NaN : Number(s));
const parseSchema = (s: string): Record<string, unknown> | null => {
  try {
    const v: unknown = JSON.parse(s);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
};
const expectation = (v: EvaluatorValues) =>
  v.expected_path.trim() ? { expected_path: v.expected_path.trim() } : { expected: v.expected };
const categories = (s: string) =>
  s
    .split(',')
    .map((c) => c.trim())
    .filter(Boolean);

/** Per-field errors for the chosen type (the API checks again). */
export function validate(v: EvaluatorValues): Partial<Record<keyof EvaluatorValues, string>> {
  const e: Partial<Record<keyof EvaluatorValues, string>> = {};
  if (!v.name.trim()) e.name = 'Name it: its scores carry this name';
  if (v.type === 'regex') {
    if (!v.pattern) e.pattern = 'A pattern';
    else
      try {
        new RegExp(v.pattern, v.flags);
      } catch {
        e.pattern = 'Not a valid regular expression';
      }
    if (!/^[imsu]*$/.test(v.flags)) e.flags = 'Flags among i, m, s, u';
  }
  if (v.type === 'contains' && !v.value) e.value = 'The text to look for';
  if (
    (v.type === 'exact_match' || v.type === 'levenshtein' || v.type === 'llm_judge') &&
    v.expected_path.trim() &&
    !v.expected_path.trim().startsWith('$')
  )
    e.expected_path = 'A JSONPath, starting with $';
  if (v.type === 'json_schema' && !parseSchema(v.schema)) e.schema = 'A JSON object';
  if (v.type === 'latency' && !(num(v.max_ms) > 0)) e.max_ms = 'More than 0 ms';
  if (v.type === 'cost' && !(num(v.max_usd) > 0)) e.max_usd = 'More than $0';
  if (v.type === 'llm_judge') {
    if (!v.model.trim()) e.model = 'A model';
    if (!v.template.trim()) e.template = 'A template';
    if (v.output === 'numeric' && !(num(v.min) < num(v.max))) e.max = 'Above the minimum';
    if (v.output === 'categorical' && categories(v.categories).length < 2)
      e.categories = 'At least two, comma-separated';
  }
  return e;
}

/** The type's config as the contract takes it. */
export function toBody(v: EvaluatorValues, projectId: string | undefined): EvaluatorBody {
  const base = {
    name: v.name.trim(),
    description: v.description.trim() || null,
    ...(projectId ? { project_id: projectId } : {}),
  };
  const field = v.field;
  switch (v.type) {
    case 'regex':
      return { ...base, type: 'regex', config: { pattern: v.pattern, ...(v.flags ? { flags: v.flags } : {}), field } };
    case 'contains':
      return { ...base, type: 'contains', config: { value: v.value, case_sensitive: v.case_sensitive, field } };
    case 'exact_match':
      return { ...base, type: 'exact_match', config: { ...expectation(v), trim: v.trim, field } };
    case 'json_schema':
      return { ...base, type: 'json_schema', config: { schema: parseSchema(v.schema) ?? {}, field } };
    case 'levenshtein':
      return { ...base, type: 'levenshtein', config: { ...expectation(v), field } };
    case 'latency':
      return { ...base, type: 'latency', config: { max_ms: num(v.max_ms) } };
    case 'cost':
      return { ...base, type: 'cost', config: { max_usd: num(v.max_usd) } };
    case 'llm_judge': {
      const output =
        v.output === 'numeric'
          ? { type: 'numeric' as const, min: num(v.min), max: num(v.max) }
          : v.output === 'boolean'
            ? { type: 'boolean' as const }
            : { type: 'categorical' as const, categories: categories(v.categories) };
      const expected = v.expected_path.trim() || v.expected ? expectation(v) : {};
      return {
        ...base,
        type: 'llm_judge',
        config: { provider: v.provider, model: v.model.trim(), template: v.template, output, ...expected },
      };
    }
  }
}
