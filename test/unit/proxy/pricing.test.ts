import { calcPrice } from '@pydantic/genai-prices';
import { createProxyPricer } from '../../../src/providers/cost';
import { providers } from '../../../src/providers/providers';

/** The proxy's pricer against the genai-prices catalogue (the other proxy pieces are in pieces.test.ts). */
const costUsd = createProxyPricer();

describe('cost', () => {
  const u = { promptTokens: 1000, completionTokens: 500, totalTokens: 1500, cacheReadTokens: 0, cacheWriteTokens: 0 };
  it('prices known models with genai-prices', () => {
    const expected = calcPrice({ input_tokens: 1000, output_tokens: 500 }, 'gpt-4o', {
      providerId: 'openai',
    })!.total_price;
    expect(costUsd(providers.openai, 'gpt-4o', u)).toBeCloseTo(expected, 12);
    expect(costUsd(providers.gemini, 'models/gemini-2.0-flash', u)).toBeGreaterThan(0);
  });
  it('null for unknown models, missing models and self-hosted runtimes', () => {
    expect(costUsd(providers.openai, 'not-a-model-xyz', u)).toBeNull();
    expect(costUsd(providers.openai, null, u)).toBeNull();
    expect(costUsd(providers.ollama, 'llama3', u)).toBeNull();
  });
  it('zero tokens of a known model cost 0', () => {
    expect(costUsd(providers.openai, 'gpt-4o', { ...u, promptTokens: 0, completionTokens: 0, totalTokens: 0 })).toBe(0);
  });
});

describe('cost memo', () => {
  it('prices repeat lookups exactly like the catalogue, including cache tokens', () => {
    for (const [model, pid, slug] of [
      ['gpt-4o-mini', 'openai', 'openai'],
      ['claude-3-5-sonnet-20241022', 'anthropic', 'anthropic'],
    ] as const) {
      for (let i = 0; i < 3; i++) {
        const usage = {
          promptTokens: 1000 + i,
          completionTokens: 10 * i,
          totalTokens: 1000 + 11 * i,
          cacheReadTokens: 100 * i,
          cacheWriteTokens: i,
        };
        const expected = calcPrice(
          {
            input_tokens: usage.promptTokens,
            output_tokens: usage.completionTokens,
            cache_read_tokens: usage.cacheReadTokens || undefined,
            cache_write_tokens: usage.cacheWriteTokens || undefined,
          },
          model,
          { providerId: pid },
        )!.total_price;
        expect(costUsd(providers[slug], model, usage)).toBeCloseTo(expected, 12);
      }
    }
    expect(
      costUsd(providers.openai, 'not-a-model-xyz', {
        promptTokens: 1,
        completionTokens: 1,
        totalTokens: 2,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
      }),
    ).toBeNull();
  });
});
