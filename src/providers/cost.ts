import { calcPrice, type ModelPrice, type Provider } from '@pydantic/genai-prices';
import type { ProviderDef } from './providers';
import type { Usage } from './usage';

/**
 * Cost in USD from the @pydantic/genai-prices catalogue. Null when the model is unknown to it
 * (never guessed as 0) or the provider is self-hosted.
 *
 * calcPrice costs ~15 µs a call (model matching, unit trees), paid on every proxied call. The
 * first lookup of each (provider, model) is remembered: a model whose four token prices are flat
 * numbers is then priced here by the catalogue's own rule (uncached input at the input price,
 * cache reads and writes at theirs, falling back to the input price when absent); a model with
 * tiered or time-conditional prices keeps going through calcPrice, narrowed to that one model.
 * `test/unit/proxy/cost.test.ts` checks the flat rule against calcPrice for every catalogue model.
 */
export type ProxyPricer = (provider: ProviderDef, model: string | null, usage: Usage) => number | null;

/**
 * The token prices of a model whose prices are all plain numbers, input-side terms in the
 * catalogue's own order (so sums round like calcPrice's).
 */
export interface FlatPrices {
  input: { leaf: 'input' | 'read' | 'write'; perMTok: number }[];
  output: number;
  /** Whether cache reads/writes have their own price (otherwise they count as input). */
  read: boolean;
  write: boolean;
}

type Memo = { flat: FlatPrices } | { narrow: Provider } | null;

export function createProxyPricer(): ProxyPricer {
  const memo = new Map<string, Memo>();
  return (provider, model, usage) => {
    if (!provider.pricesId || !model) return null;
    const name = provider.slug === 'gemini' ? model.replace(/^models\//, '') : model;
    const key = `${provider.pricesId}\n${name}`;
    let m = memo.get(key);
    if (m === undefined) {
      // Found with zero usage: a first call whose usage the catalogue refuses must not hide the model.
      const r = catalogue(zeroUsage, name, { providerId: provider.pricesId });
      m = r ? memoFor(r.provider, r.model) : null;
      if (memo.size > 5000) memo.clear();
      memo.set(key, m);
    }
    if (m === null) return null;
    if ('flat' in m) return flatCost(m.flat, usage);
    return catalogue(usage, name, { provider: m.narrow })?.total ?? null;
  };
}

/** The flat prices of a catalogue model, or undefined when any price is tiered, conditional or per request. */
export function flatPricesOf(prices: ModelPrice | unknown[]): FlatPrices | undefined {
  if (Array.isArray(prices)) return undefined;
  const f: FlatPrices = { input: [], output: 0, read: false, write: false };
  for (const [k, v] of Object.entries(prices)) {
    if (v === undefined) continue;
    // Tiers and per-request prices are left to calcPrice; other unit prices meet usage we never send.
    if (typeof v !== 'number' || !Number.isFinite(v) || k === 'requests_kcount') return undefined;
    if (k === 'input_mtok') f.input.push({ leaf: 'input', perMTok: v });
    else if (k === 'cache_read_mtok') {
      f.input.push({ leaf: 'read', perMTok: v });
      f.read = true;
    } else if (k === 'cache_write_mtok') {
      f.input.push({ leaf: 'write', perMTok: v });
      f.write = true;
    } else if (k === 'output_mtok') f.output = v;
  }
  return f;
}

/** The catalogue's rule for flat prices; null on usage it would refuse (cache parts above the input). */
export function flatCost(f: FlatPrices, usage: Usage): number | null {
  const read = usage.cacheReadTokens || 0;
  const write = usage.cacheWriteTokens || 0;
  if (usage.promptTokens - read - write < 0) return null;
  const tokens = { input: usage.promptTokens - (f.read ? read : 0) - (f.write ? write : 0), read, write };
  let input = 0;
  for (const t of f.input) input += (t.perMTok * tokens[t.leaf]) / 1e6;
  return round(input + (f.output * usage.completionTokens) / 1e6);
}

function memoFor(provider: Provider, model: Provider['models'][number]): Memo {
  const flat = flatPricesOf(model.prices);
  return flat ? { flat } : { narrow: { ...provider, models: [model] } };
}

function catalogue(usage: Usage, name: string, opts: { providerId: string } | { provider: Provider }) {
  try {
    const r = calcPrice(
      {
        input_tokens: usage.promptTokens,
        output_tokens: usage.completionTokens,
        cache_read_tokens: usage.cacheReadTokens || undefined,
        cache_write_tokens: usage.cacheWriteTokens || undefined,
      },
      name,
      opts,
    );
    if (!r || !Number.isFinite(r.total_price)) return null;
    return { provider: r.provider, model: r.model, total: round(r.total_price) };
  } catch {
    // The catalogue throws on inconsistent usage (e.g. cache parts above the total): unknown cost.
    return null;
  }
}

const zeroUsage: Usage = {
  promptTokens: 0,
  completionTokens: 0,
  totalTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
};

// numeric(20,10): ten decimals, enough for one token of the cheapest model.
const round = (usd: number) => Math.round(usd * 1e10) / 1e10;
