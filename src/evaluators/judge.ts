import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { request } from 'undici';
import type { Config } from '../config';
import { getProviderKey } from '../keys/provider-keys';
import type { Keyring } from '../keys/crypto';
import type { ProxyPricer } from '../proxy/cost';
import { applyProviderAuth, baseUrlFor, findProvider } from '../proxy/providers';
import { insertRequestRows, type RequestRow } from '../proxy/request-row';
import { anthropicUsage, openaiUsage } from '../proxy/usage';
import { EvaluationError, expectedOf, pick, type Outcome } from './evaluate';
import type { EvaluatorConfig } from './schemas';
import type { EvalTarget } from './targets';

/**
 * LLM-as-a-judge: renders the template from the target, calls the provider with the project's
 * own key from the vault, logs the call as a request row of the project (tagged with the evaluator
 * and the target, priced like any call), and reads `{"score", "reasoning"}` from the answer.
 * 429 and 5xx throw a plain Error (the activity's retry policy backs off); anything else that
 * cannot succeed is an EvaluationError.
 */
type Judge = Extract<EvaluatorConfig, { type: 'llm_judge' }>['config'];
export interface JudgeDeps {
  db: Knex;
  keyring: Keyring;
  config: Config;
  pricer: ProxyPricer;
}

export function render(j: Judge, t: EvalTarget): string {
  return j.template.replace(/\{\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}\}/g, (_m, name: string) => {
    if (name === 'input') return t.input;
    if (name === 'output') return t.output;
    if (name === 'expected') {
      if (j.expected === undefined && j.expected_path === undefined) throw new EvaluationError('the template uses {{expected}} but the evaluator sets neither expected nor expected_path');
      return expectedOf(t, j);
    }
    if (name.startsWith('metadata.')) return text(t.doc.metadata[name.slice('metadata.'.length)]);
    if (j.variables?.[name]) return text(pick(t, j.variables[name]));
    throw new EvaluationError(`unknown template variable {{${name}}}`);
  });
}
const text = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v));

function instruction(j: Judge): string {
  const o = j.output;
  const score = o.type === 'numeric' ? `a number from ${o.min} to ${o.max}` : o.type === 'boolean' ? 'true or false' : `one of ${o.categories.map((c) => JSON.stringify(c)).join(', ')}`;
  return `Answer with only a JSON object: {"score": ${score}, "reasoning": "one or two sentences"}.`;
}

/** The judge's answer as a score, or an EvaluationError naming what was wrong with it. */
export function parseVerdict(j: Judge, content: string): Omit<Outcome, 'judge'> {
  let v: { score?: unknown; reasoning?: unknown };
  try {
    v = JSON.parse(content.trim().replace(/^```(?:json)?\s*|\s*```$/g, ''));
  } catch {
    throw new EvaluationError(`the judge did not answer JSON: ${content.slice(0, 200)}`);
  }
  const comment = typeof v?.reasoning === 'string' ? v.reasoning.slice(0, 10_000) : null;
  const o = j.output;
  if (o.type === 'numeric') {
    if (typeof v.score !== 'number' || v.score < o.min || v.score > o.max) throw new EvaluationError(`score ${JSON.stringify(v.score)} is not a number in [${o.min}, ${o.max}]`);
    return { data_type: 'numeric', value: v.score, comment };
  }
  if (o.type === 'boolean') {
    const b = v.score === true || v.score === 'true' ? 1 : v.score === false || v.score === 'false' ? 0 : null;
    if (b === null) throw new EvaluationError(`score ${JSON.stringify(v.score)} is not true or false`);
    return { data_type: 'boolean', value: b, string_value: b ? 'true' : 'false', comment };
  }
  if (typeof v.score !== 'string' || !o.categories.includes(v.score)) throw new EvaluationError(`score ${JSON.stringify(v.score)} is not one of ${o.categories.join(', ')}`);
  return { data_type: 'categorical', value: o.categories.indexOf(v.score), string_value: v.score, comment };
}

export async function runJudge(deps: JudgeDeps, j: Judge, t: EvalTarget, tags: Record<string, string>): Promise<Outcome> {
  const p = findProvider(j.provider)!;
  const key = await getProviderKey(deps.db, t.projectId, j.provider, deps.keyring);
  if (!key && p.auth !== 'none') throw new EvaluationError(`the project has no ${j.provider} provider key`);
  const prompt = render(j, t);
  const anthropic = p.slug === 'anthropic';
  const path = anthropic ? '/v1/messages' : '/v1/chat/completions';
  const body = anthropic
    ? { model: j.model, max_tokens: j.max_tokens, temperature: j.temperature, system: instruction(j), messages: [{ role: 'user', content: prompt }] }
    : { model: j.model, max_tokens: j.max_tokens, temperature: j.temperature, messages: [{ role: 'system', content: instruction(j) }, { role: 'user', content: prompt }] };
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  applyProviderAuth(p, headers, key?.apiKey ?? null);
  const started = Date.now();
  const res = await request(`${baseUrlFor(p, deps.config, key?.baseUrl)}${path}`, { method: 'POST', headers, body: JSON.stringify(body), headersTimeout: 120_000, bodyTimeout: 120_000 });
  const raw = await res.body.text();
  const latency = Date.now() - started;
  let answer: Record<string, any> = {};
  try {
    answer = JSON.parse(raw);
  } catch {
    // logged as is below
  }
  const usage = (anthropic ? anthropicUsage(answer.usage) : openaiUsage(answer.usage)) ?? { promptTokens: 0, completionTokens: 0, totalTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  const cost = res.statusCode < 400 ? deps.pricer(p, j.model, usage) : null;
  const row: RequestRow = {
    id: randomUUID(), org_id: t.orgId, project_id: t.projectId, api_key_id: null, provider: p.slug, model: j.model, method: 'POST', path,
    prompt_tokens: usage.promptTokens, completion_tokens: usage.completionTokens, total_tokens: usage.totalTokens, cache_read_tokens: 0, cache_write_tokens: 0,
    cost_usd: cost, latency_ms: latency, ttfb_ms: null, status_code: res.statusCode, trace_id: t.kind === 'trace' ? t.id : null, span_id: null, user_id: null, session_id: null,
    request_body: JSON.stringify(body), response_body: raw.slice(0, 1_000_000), log_mode: 'full', cache_hit: false, streamed: false, tokens_estimated: false,
    self_hosted: p.selfHosted, prompt_version_id: null, error: res.statusCode >= 400 ? `judge call failed: ${res.statusCode}` : null, created_at: new Date().toISOString(),
    properties: { 'eval.target': `${t.kind}:${t.id}`, ...tags }, cost_saved_usd: null,
  };
  await deps.db.transaction((trx) => insertRequestRows(trx, [{ row }]));
  if (res.statusCode === 429 || res.statusCode >= 500) throw new Error(`judge call: ${j.provider} answered ${res.statusCode} (retried with backoff)`);
  if (res.statusCode >= 400) throw new EvaluationError(`judge call: ${j.provider} answered ${res.statusCode}: ${raw.slice(0, 300)}`);
  const content = anthropic ? (answer.content ?? []).map((c: { text?: string }) => c.text ?? '').join('') : (answer.choices?.[0]?.message?.content ?? '');
  return { ...parseVerdict(j, content), judge: { requestId: row.id, costUsd: cost } };
}
