import { calcPrice } from '@pydantic/genai-prices';

/**
 * Span cost in USD from the @pydantic/genai-prices catalogue, for spans that name a model and
 * carry token counts. A catalogue lookup costs ~0.2 ms, far too much per span at ingest rates, so
 * each model's per-token rates are measured once and reused while pricing stays linear in tokens;
 * models with tiered prices (the rate differs between small and large usage) are priced exactly on
 * every call. Unknown models cost null (never a guessed 0).
 */
type Rates = { kind: 'linear'; input: number; output: number } | { kind: 'exact' } | { kind: 'unknown' };

const MAX_MODELS = 2000;
const TTL_MS = 3_600_000; // prices change over time (the catalogue is date-aware)

function price(model: string, input: number, output: number): number | null {
  try {
    const r = calcPrice({ input_tokens: input, output_tokens: output }, model);
    return r && Number.isFinite(r.total_price) ? r.total_price : null;
  } catch {
    return null;
  }
}

function measure(model: string): Rates {
  const inSmall = price(model, 1000, 0);
  if (inSmall === null) return { kind: 'unknown' };
  const outSmall = price(model, 0, 1000);
  const inLarge = price(model, 1_000_000, 0);
  const outLarge = price(model, 0, 1_000_000);
  if (outSmall === null || inLarge === null || outLarge === null) return { kind: 'exact' };
  const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));
  if (!close(inLarge, inSmall * 1000) || !close(outLarge, outSmall * 1000)) return { kind: 'exact' };
  return { kind: 'linear', input: inSmall / 1000, output: outSmall / 1000 };
}

/** Span cost in USD (null when unknown); built once per process and handed to the ingest writer. */
export type SpanPricer = (
  model: string | null | undefined,
  promptTokens: number | null | undefined,
  completionTokens: number | null | undefined,
) => number | null;

/** A pricer with its own cache of measured per-model rates. */
export function createSpanPricer(): SpanPricer {
  const cache = new Map<string, { rates: Rates; at: number }>();
  const ratesFor = (model: string, now: number): Rates => {
    const hit = cache.get(model);
    if (hit && now - hit.at < TTL_MS) return hit.rates;
    const rates = measure(model);
    if (cache.size >= MAX_MODELS) cache.delete(cache.keys().next().value as string);
    cache.set(model, { rates, at: now });
    return rates;
  };
  return (model, promptTokens, completionTokens) => {
    if (!model || (promptTokens == null && completionTokens == null)) return null;
    const input = promptTokens ?? 0;
    const output = completionTokens ?? 0;
    const rates = ratesFor(model, Date.now());
    let usd: number | null;
    if (rates.kind === 'unknown') usd = null;
    else if (rates.kind === 'linear') usd = input * rates.input + output * rates.output;
    else usd = price(model, input, output);
    // numeric(20,10): ten decimals, enough for one token of the cheapest model
    return usd === null ? null : Math.round(usd * 1e10) / 1e10;
  };
}
