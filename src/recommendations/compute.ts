import type { AnalyticsStore } from '../analytics/store';
import { createProxyPricer } from '../providers/cost';
import { findProvider } from '../providers/providers';
import { cheaperFor } from './substitutes';

/**
 * The recommendations of one project from its last WINDOW_DAYS of calls (docs/recommendations.md).
 * Savings are monthly: the window's figure × 30 / WINDOW_DAYS, priced with genai-prices.
 */
const WINDOW_DAYS = 7;
const MONTH = 30 / WINDOW_DAYS;
const SHORT = { prompt: 2000, completion: 500 };
const MIN_CALLS = 50;
const MIN_SHORT_SHARE = 0.6;
const MIN_REPEATS = 10;
const MIN_GROWTH = { ratio: 0.1, tokens: 50 };
const MIN_FAILURES = 10;
const LONG = { latencyMs: 10_000, completion: 500, calls: 10 };

export interface Recommendation {
  kind:
    | 'cheaper_model'
    | 'cache_repeats'
    | 'prompt_growth'
    | 'rate_limited'
    | 'upstream_errors'
    | 'stream_long_completions';
  subject: string;
  title: string;
  detail: string;
  evidence: Record<string, unknown>;
  monthlySavingUsd: number;
}

const usd = (v: number) => `$${v.toFixed(2)}`;
const round = (v: number) => Math.round(v * 1e6) / 1e6;

export async function computeRecommendations(
  store: AnalyticsStore,
  projectId: string,
  nowMs: number,
): Promise<Recommendation[]> {
  const from = new Date(nowMs - WINDOW_DAYS * 86_400_000).toISOString();
  const to = new Date(nowMs).toISOString();
  const pricer = createProxyPricer();
  /** Cost of `calls` calls of the given average size; null when the catalogue has no price. */
  const cost = (provider: string, model: string, prompt: number, completion: number, calls = 1) => {
    const p = findProvider(provider);
    const c =
      p &&
      pricer(p, model, {
        promptTokens: prompt,
        completionTokens: completion,
        totalTokens: prompt + completion,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
      });
    return c === null || c === undefined ? null : c * calls;
  };
  const out: Recommendation[] = [];
  const [models, repeats, prompts, failing, long] = await Promise.all([
    store.recommendationInputs.modelUsage(projectId, from, to, SHORT),
    store.recommendationInputs.repeatedBodies(projectId, from, to),
    store.recommendationInputs.promptVersionUsage(projectId, from, to),
    store.recommendationInputs.failingCallers(projectId, from, to),
    store.recommendationInputs.longUnstreamed(projectId, from, to, LONG.latencyMs, LONG.completion),
  ]);

  for (const m of models) {
    const cheaper = cheaperFor(m.provider, m.model);
    if (!cheaper || m.calls < MIN_CALLS || m.shortCalls / m.calls < MIN_SHORT_SHARE) continue;
    // Priced as that many calls of the short calls' average size (tiered prices stay per call).
    const [avgP, avgC] = [m.shortPrompt / m.shortCalls, m.shortCompletion / m.shortCalls];
    const now = cost(m.provider, m.model, avgP, avgC, m.shortCalls);
    const then = cost(m.provider, cheaper, avgP, avgC, m.shortCalls);
    if (now === null || then === null || now <= then) continue;
    const saving = round((now - then) * MONTH);
    out.push({
      kind: 'cheaper_model',
      subject: `${m.provider}/${m.model}`,
      monthlySavingUsd: saving,
      title: `Try ${cheaper} for the short calls of ${m.model}`,
      detail:
        `${m.shortCalls} of ${m.calls} calls to ${m.model} in ${WINDOW_DAYS} days had at most ` +
        `${SHORT.prompt} prompt and ${SHORT.completion} completion tokens; ` +
        `on ${cheaper} they would cost ${usd(then)} instead of ${usd(now)}.`,
      evidence: {
        provider: m.provider,
        model: m.model,
        cheaper,
        calls: m.calls,
        short_calls: m.shortCalls,
        short_prompt_tokens: m.shortPrompt,
        short_completion_tokens: m.shortCompletion,
        window_cost_usd: round(now),
        window_cost_cheaper_usd: round(then),
        sample_request_ids: m.samples,
      },
    });
  }

  if (repeats.repeats >= MIN_REPEATS) {
    out.push({
      kind: 'cache_repeats',
      subject: 'project',
      monthlySavingUsd: round(repeats.cost * MONTH),
      title: 'Turn on the response cache for repeated requests',
      detail:
        `${repeats.repeats} calls in ${WINDOW_DAYS} days repeated a byte-identical request ` +
        `(${repeats.bodies} distinct bodies) within a day, ` +
        `and paid ${usd(repeats.cost)} for answers x-service-cache would have served.`,
      evidence: {
        repeats: repeats.repeats,
        distinct_bodies: repeats.bodies,
        window_cost_usd: round(repeats.cost),
        sample_request_ids: repeats.samples,
      },
    });
  }

  // Each prompt (per model): its newest version with calls against the one before it.
  const byPrompt = new Map<string, typeof prompts>();
  for (const p of prompts)
    byPrompt.set(`${p.name}\u0000${p.provider}\u0000${p.model}`, [
      ...(byPrompt.get(`${p.name}\u0000${p.provider}\u0000${p.model}`) ?? []),
      p,
    ]);
  for (const versions of byPrompt.values()) {
    if (versions.length < 2) continue;
    const [prev, last] = versions.slice(-2) as [(typeof prompts)[number], (typeof prompts)[number]];
    const growth = last.avgPrompt - prev.avgPrompt;
    if (growth < MIN_GROWTH.tokens || growth < MIN_GROWTH.ratio * prev.avgPrompt) continue;
    const extra = cost(last.provider, last.model, growth, 0, last.calls);
    out.push({
      kind: 'prompt_growth',
      subject: `${last.name}@${last.version}/${last.model}`,
      monthlySavingUsd: round((extra ?? 0) * MONTH),
      title: `Prompt ${last.name} grew by ${Math.round(growth)} tokens in version ${last.version}`,
      detail:
        `Version ${last.version} sends ${Math.round(last.avgPrompt)} prompt tokens a call on average, ` +
        `version ${prev.version} sent ${Math.round(prev.avgPrompt)}; ` +
        `over ${last.calls} calls that is ${usd(extra ?? 0)} in ${WINDOW_DAYS} days.`,
      evidence: {
        prompt: last.name,
        model: last.model,
        version: last.version,
        previous_version: prev.version,
        avg_prompt_tokens: round(last.avgPrompt),
        previous_avg_prompt_tokens: round(prev.avgPrompt),
        calls: last.calls,
        sample_request_ids: last.samples,
      },
    });
  }

  for (const f of failing) {
    if (f.failures < MIN_FAILURES) continue;
    const what = f.kind === 'rate_limited' ? '429 (rate limited)' : 'upstream 5xx errors';
    out.push({
      kind: f.kind,
      subject: `${f.who}:${f.id}`,
      monthlySavingUsd: 0,
      title: `${f.who === 'user' ? 'End user' : 'API key'} ${f.id} got ${f.failures} ${what}`,
      detail:
        f.kind === 'rate_limited'
          ? 'Raise its limit, spread its calls, or retry with backoff.'
          : 'Add a fallback provider or retries with backoff for these calls.',
      evidence: {
        [f.who === 'user' ? 'user_id' : 'api_key_id']: f.id,
        failures: f.failures,
        sample_request_ids: f.samples,
      },
    });
  }

  for (const l of long) {
    if (l.calls < LONG.calls) continue;
    out.push({
      kind: 'stream_long_completions',
      subject: l.model,
      monthlySavingUsd: 0,
      title: `Stream the long completions of ${l.model}`,
      detail:
        `${l.calls} calls waited ${Math.round(l.p50 / 1000)} s (median) ` +
        `for ${LONG.completion}+ tokens without streaming` +
        (l.ttft !== null
          ? `; streamed calls of this model show their first token after ${Math.round(l.ttft)} ms`
          : '') +
        '.',
      evidence: {
        model: l.model,
        calls: l.calls,
        latency_p50_ms: round(l.p50),
        streamed_ttft_p50_ms: l.ttft === null ? null : round(l.ttft),
        sample_request_ids: l.samples,
      },
    });
  }
  return out;
}
