import { describe, expect, it } from 'vitest';
import { PLACEHOLDER_KEY, snippets } from './snippets';

describe('first-run snippets', () => {
  const all = snippets('https://gw.example.com');
  it('offers the four ways in, each with the real address and the placeholder key', () => {
    expect(all.map((s) => s.id)).toEqual(['openai', 'anthropic', 'otlp', 'sdk']);
    for (const s of all) expect(s.code).toContain(PLACEHOLDER_KEY);
  });
  it('points each at the route that takes it', () => {
    const code = Object.fromEntries(all.map((s) => [s.id, s.code]));
    expect(code.openai).toContain("baseURL: 'https://gw.example.com/proxy/openai/v1'");
    expect(code.anthropic).toContain("baseURL: 'https://gw.example.com/proxy/anthropic'");
    expect(code.otlp).toContain('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT="https://gw.example.com/v1/traces"');
    expect(code.sdk).toContain("baseUrl: 'https://gw.example.com'");
  });
});
