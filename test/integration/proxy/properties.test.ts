import OpenAI from 'openai';
import { api } from '../../helpers/auth';
import { proxyFetch, startProxyHarness, type ProxyHarness } from './harness';

/** x-service-property-<name>: stored per call, stripped before the provider, filterable and groupable. */
describe('proxy: custom properties', () => {
  let h: ProxyHarness;
  let client: OpenAI;
  beforeAll(async () => {
    h = await startProxyHarness({ providers: ['openai'] });
    client = new OpenAI({ apiKey: h.tenant.fullKey, baseURL: `${h.base('openai')}/v1`, maxRetries: 0 });
  });
  afterAll(() => h.stop());
  beforeEach(() => h.upstream.reset());

  it('stores properties (names case-insensitive), never forwards them, and filters and groups by them', async () => {
    for (const tier of ['gold', 'gold', 'free']) {
      await client.chat.completions.create(
        { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
        { headers: { 'X-Service-Property-Tier': tier, 'x-service-property-feature.name': ' search ' } },
      );
    }
    expect(
      h.upstream.requests.flatMap((r) => Object.keys(r.headers).filter((k) => k.startsWith('x-service-'))),
    ).toEqual([]);
    const rows = await h.rows(3);
    expect(rows.map((r) => r.properties)).toEqual([
      { tier: 'gold', 'feature.name': 'search' },
      { tier: 'gold', 'feature.name': 'search' },
      { tier: 'free', 'feature.name': 'search' },
    ]);
    const who = { token: h.tenant.admin.token, orgId: h.tenant.orgId };
    const listed = await api(h.app, 'GET', '/api/v1/requests?property=tier:gold', who);
    expect(listed.body.data).toHaveLength(2);
    const grouped = await api(h.app, 'GET', '/api/v1/stats?group_by=property:tier', who);
    expect(
      grouped.body.data.breakdown.items.map((i: { key: string; requests: number }) => [i.key, i.requests]),
    ).toEqual([
      ['gold', 2],
      ['free', 1],
    ]);
  });

  it(
    'refuses a bad property name, ' + 'an over-long value or more than 20 properties with 400, before the provider',
    async () => {
      const call = (headers: Record<string, string>) =>
        proxyFetch(h, 'openai', '/v1/chat/completions', { headers, body: { model: 'gpt-4o-mini', messages: [] } });
      const bad = async (headers: Record<string, string>, code: string) => {
        const r = await call(headers);
        expect(r.status).toBe(400);
        expect(((await r.json()) as { code: string }).code).toBe(code);
      };
      await bad({ 'x-service-property-_x': 'v' }, 'invalid_property');
      await bad({ 'x-service-property-big': 'v'.repeat(257) }, 'invalid_property');
      await bad(
        Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`x-service-property-p${i}`, 'v'])),
        'too_many_properties',
      );
      expect(h.upstream.requests).toHaveLength(0);
      expect(
        (await call(Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`x-service-property-p${i}`, 'v']))))
          .status,
      ).toBe(200);
    },
  );
});
