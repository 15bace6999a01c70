import Ajv from 'ajv';
import { EvaluationError, checkConfig, evaluateLocal, scoreTypeOf } from '../../../src/evaluators/evaluate';
import { parseVerdict, render } from '../../../src/evaluators/judge';
import { evaluatorConfig, type EvaluatorConfig } from '../../../src/evaluators/schemas';
import { inputText, outputText, type EvalTarget } from '../../../src/evaluators/targets';
import { scoreIdOf } from '../../../src/eval-runs/execute';

/** Each evaluator type on known inputs; the judge's rendering and verdict parsing. */
const target = (over: Partial<EvalTarget> = {}): EvalTarget => ({
  kind: 'request',
  id: 'r1',
  projectId: 'p',
  orgId: 'o',
  input: 'What is 2+2?',
  output: '{"answer": 4}',
  doc: {
    input: { messages: [{ role: 'user', content: 'What is 2+2?' }] },
    output: { answer: 4 },
    metadata: { expected: '{"answer": 4}', lang: 'en' },
  },
  latencyMs: 900,
  costUsd: 0.002,
  ...over,
});
const ajv = new Ajv({ strict: false });
const cfg = (v: unknown) => evaluatorConfig.parse(v) as Exclude<EvaluatorConfig, { type: 'llm_judge' }>;
const run = (v: unknown, t = target()) => evaluateLocal(cfg(v), t, ajv);

describe('evaluators', () => {
  it('regex, contains, exact_match, json_schema, levenshtein, latency, cost', () => {
    expect(run({ type: 'regex', config: { pattern: '"answer":\\s*\\d+' } })).toMatchObject({
      data_type: 'boolean',
      value: 1,
      string_value: 'true',
    });
    expect(run({ type: 'regex', config: { pattern: 'what', flags: 'i', field: 'input' } })).toMatchObject({ value: 1 });
    expect(run({ type: 'contains', config: { value: 'ANSWER' } })).toMatchObject({ value: 1 });
    expect(run({ type: 'contains', config: { value: 'ANSWER', case_sensitive: true } })).toMatchObject({ value: 0 });
    expect(run({ type: 'exact_match', config: { expected_path: '$.metadata.expected' } })).toMatchObject({ value: 1 });
    expect(run({ type: 'exact_match', config: { expected: '{"answer": 5}' } })).toMatchObject({ value: 0 });
    const schema = { type: 'object', required: ['answer'], properties: { answer: { type: 'number' } } };
    expect(run({ type: 'json_schema', config: { schema } })).toMatchObject({ value: 1, comment: null });
    expect(run({ type: 'json_schema', config: { schema } }, target({ output: '{"answer": "four"}' }))).toMatchObject({
      value: 0,
      comment: expect.stringContaining('number'),
    });
    expect(run({ type: 'json_schema', config: { schema } }, target({ output: 'four' }))).toMatchObject({
      value: 0,
      comment: 'not JSON',
    });
    expect(run({ type: 'levenshtein', config: { expected: 'kitten' } }, target({ output: 'sitting' }))).toMatchObject({
      data_type: 'numeric',
      value: 0.571429,
      comment: 'edit distance 3',
    });
    expect(run({ type: 'levenshtein', config: { expected: '' } }, target({ output: '' }))).toMatchObject({ value: 1 });
    expect(run({ type: 'latency', config: { max_ms: 1000 } })).toMatchObject({ value: 1, comment: '900 ms' });
    expect(run({ type: 'cost', config: { max_usd: 0.001 } })).toMatchObject({ value: 0 });
    expect(() => run({ type: 'cost', config: { max_usd: 1 } }, target({ costUsd: null }))).toThrow(EvaluationError);
    expect(() => run({ type: 'exact_match', config: { expected_path: '$.metadata.missing' } })).toThrow(
      EvaluationError,
    );
  });

  it('refuses configs that cannot work: a bad pattern, a bad schema, both or neither expected', () => {
    expect(() => checkConfig(cfg({ type: 'regex', config: { pattern: '(' } }))).toThrow();
    expect(() => checkConfig(cfg({ type: 'json_schema', config: { schema: { type: 'nope' } } }))).toThrow();
    expect(evaluatorConfig.safeParse({ type: 'exact_match', config: {} }).success).toBe(false);
    expect(
      evaluatorConfig.safeParse({ type: 'exact_match', config: { expected: 'a', expected_path: '$.b' } }).success,
    ).toBe(false);
    expect(scoreTypeOf(cfg({ type: 'levenshtein', config: { expected: 'a' } }))).toBe('numeric');
  });

  const judge = evaluatorConfig.parse({
    type: 'llm_judge',
    config: {
      provider: 'openai',
      model: 'gpt-4o-mini',
      template: 'Q: {{input}}\nA: {{output}}\nWant: {{expected}} ({{metadata.lang}}, {{q}})',
      expected_path: '$.metadata.expected',
      variables: { q: '$.input.messages[0].role' },
      output: { type: 'numeric', min: 0, max: 1 },
    },
  }) as Extract<EvaluatorConfig, { type: 'llm_judge' }>;

  it('renders the judge template from the target', () => {
    expect(render(judge.config, target())).toBe('Q: What is 2+2?\nA: {"answer": 4}\nWant: {"answer": 4} (en, user)');
    expect(() => render({ ...judge.config, template: '{{nope}}' }, target())).toThrow(EvaluationError);
  });

  it('reads the verdict; malformed or out-of-range answers are evaluation errors', () => {
    expect(parseVerdict(judge.config, '```json\n{"score": 0.8, "reasoning": "close"}\n```')).toEqual({
      data_type: 'numeric',
      value: 0.8,
      comment: 'close',
    });
    expect(() => parseVerdict(judge.config, 'I think 0.8')).toThrow(EvaluationError);
    expect(() => parseVerdict(judge.config, '{"score": 3}')).toThrow(EvaluationError);
    const cat = { ...judge.config, output: { type: 'categorical' as const, categories: ['bad', 'ok', 'good'] } };
    expect(parseVerdict(cat, '{"score": "good"}')).toMatchObject({ value: 2, string_value: 'good' });
    expect(() => parseVerdict(cat, '{"score": "great"}')).toThrow(EvaluationError);
    const b = { ...judge.config, output: { type: 'boolean' as const } };
    expect(parseVerdict(b, '{"score": false, "reasoning": "no"}')).toMatchObject({ value: 0, string_value: 'false' });
  });

  it('reads chat shapes of requests and answers, streams included', () => {
    expect(
      inputText({
        messages: [
          { role: 'system', content: 's' },
          { role: 'user', content: [{ type: 'text', text: 'hi' }] },
        ],
      }),
    ).toBe('hi');
    expect(inputText({ contents: [{ role: 'user', parts: [{ text: 'g' }] }] })).toBe('g');
    expect(outputText({ choices: [{ message: { content: 'a' } }] })).toBe('a');
    expect(outputText({ content: [{ type: 'text', text: 'b' }] })).toBe('b');
    expect(outputText({ candidates: [{ content: { parts: [{ text: 'c' }] } }] })).toBe('c');
    expect(
      outputText(
        'data: {"choices":[{"delta":{"content":"He"}}]}\n\n' +
          'data: {"choices":[{"delta":{"content":"llo"}}]}\n\ndata: [DONE]\n',
      ),
    ).toBe('Hello');
  });

  it('derives one score id per run, evaluator and target', () => {
    const a = scoreIdOf('run', 'ev', 't1');
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(scoreIdOf('run', 'ev', 't1')).toBe(a);
    expect(scoreIdOf('run', 'ev', 't2')).not.toBe(a);
  });
});
