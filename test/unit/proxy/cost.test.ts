import { calcPrice, findProvider } from '@pydantic/genai-prices';
import { createProxyPricer, flatCost, flatPricesOf } from '../../../src/providers/cost';
import { providers } from '../../../src/providers/providers';
import type { Usage } from '../../../src/providers/usage';

const catalogueCost = (usage: Usage, model: string, providerId: string): number | null => {
  try {
    const r = calcPrice(
      {
        input_tokens: usage.promptTokens,
        output_tokens: usage.completionTokens,
        cache_read_tokens: usage.cacheReadTokens || undefined,
        cache_write_tokens: usage.cacheWriteTokens || undefined,
      },
      model,
      { providerId },
    );
    return r ? Math.round(r.total_price * 1e10) / 1e10 : null;
  } catch {
    return null;
  }
};

// A fixed pseudo-random sequence: the same usages every run, spread over the interesting ranges.
function usages(n: number): Usage[] {
  let s = 12345;
  const next = (max: number) => ((s = (s * 1103515245 + 12345) % 2 ** 31), s % max);
  const out: Usage[] = [
    { promptTokens: 0, completionTokens: 0, totalTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
  ];
  for (let i = 0; i < n; i++) {
    const prompt = next(i % 3 ? 5000 : 400_000);
    const read = i % 2 ? next(prompt + 1) : 0;
    const write = i % 4 === 1 ? next(prompt - read + 1) : 0;
    const completion = next(8000);
    out.push({
      promptTokens: prompt,
      completionTokens: completion,
      totalTokens: prompt + completion,
      cacheReadTokens: read,
      cacheWriteTokens: write,
    });
  }
  return out;
}

describe('proxy pricer', () => {
  const slugs = Object.values(providers).filter((p) => p.pricesId);

  it(
    'prices every catalogue model of every proxied provider ' +
      'exactly like calcPrice (flat rule and narrowed fallback)',
    () => {
      let flat = 0;
      let tiered = 0;
      for (const def of slugs) {
        const catalogue = findProvider({ providerId: def.pricesId! });
        expect(catalogue).toBeDefined();
        const price = createProxyPricer();
        for (const model of catalogue!.models) {
          if (flatPricesOf(model.prices)) flat++;
          else tiered++;
          for (const u of usages(12)) {
            // Twice: the first call fills the memo, the second takes the fast path.
            const want = catalogueCost(u, model.id, def.pricesId!);
            expect([model.id, price(def, model.id, u)]).toEqual([model.id, want]);
            expect([model.id, price(def, model.id, u)]).toEqual([model.id, want]);
          }
        }
      }
      // Both paths were exercised: most models are flat, some (e.g. Gemini 2.5 Pro) are tiered.
      expect(flat).toBeGreaterThan(100);
      expect(tiered).toBeGreaterThan(0);
    },
  );

  it('a first call with usage the catalogue refuses does not hide the model from later calls', () => {
    const price = createProxyPricer();
    const bad = { promptTokens: 10, completionTokens: 1, totalTokens: 11, cacheReadTokens: 50, cacheWriteTokens: 0 };
    expect(price(providers.openai, 'gpt-4o-mini', bad)).toBeNull();
    const ok = { promptTokens: 1000, completionTokens: 10, totalTokens: 1010, cacheReadTokens: 0, cacheWriteTokens: 0 };
    expect(price(providers.openai, 'gpt-4o-mini', ok)).toBe(catalogueCost(ok, 'gpt-4o-mini', 'openai'));
  });

  it(
    'counts cache tokens as input when they have no price of their own; ' +
      'leaves tiers and per-request prices to the catalogue',
    () => {
      const u = {
        promptTokens: 1e6,
        completionTokens: 1e6,
        totalTokens: 2e6,
        cacheReadTokens: 4e5,
        cacheWriteTokens: 1e5,
      };
      expect(flatCost(flatPricesOf({ input_mtok: 1, output_mtok: 2 })!, u)).toBe(3);
      expect(
        flatCost(flatPricesOf({ input_mtok: 1, cache_read_mtok: 0.5, cache_write_mtok: 1.5, output_mtok: 2 })!, u),
      ).toBe(0.5 + 0.2 + 0.15 + 2);
      expect(flatCost(flatPricesOf({ input_mtok: 1, output_mtok: 2 })!, { ...u, cacheReadTokens: 2e6 })).toBeNull();
      expect(
        flatPricesOf({ input_mtok: { base: 1, tiers: [{ start: 10, price: 2 }] }, output_mtok: 1 }),
      ).toBeUndefined();
      expect(flatPricesOf({ input_mtok: 1, output_mtok: 1, requests_kcount: 5 })).toBeUndefined();
      expect(flatPricesOf([])).toBeUndefined();
    },
  );

  it('unknown models, self-hosted providers and a missing model cost null', () => {
    const price = createProxyPricer();
    const u = { promptTokens: 5, completionTokens: 5, totalTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0 };
    expect(price(providers.openai, 'not-a-model-xyz', u)).toBeNull();
    expect(price(providers.openai, 'not-a-model-xyz', u)).toBeNull();
    expect(price(providers.ollama, 'llama3', u)).toBeNull();
    expect(price(providers.openai, null, u)).toBeNull();
  });
});
