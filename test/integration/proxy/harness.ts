import { startTestApp, type TestApp } from '../../helpers/app';
import { api, seedTenant, type SeededTenant } from '../../helpers/auth';
import { startFakeUpstream, type FakeUpstream } from '../../helpers/fake-upstream';
import { providerSlugs } from '../../../src/providers/providers';

/** Provider keys the harness stores; tests assert these reach the fake upstream and nothing else. */
export const PROVIDER_SECRET = (slug: string) => `sk-upstream-${slug}-0123456789abcdef`;

/** A requests row as pg returns it: the columns tests compute with are typed, the rest unknown. */
type LoggedRequest = Record<string, unknown> & {
  path: string;
  request_body: string;
  response_body: string;
  prompt_tokens: number;
  completion_tokens: number;
  created_at: Date;
};

export interface ProxyHarness {
  app: TestApp;
  upstream: FakeUpstream;
  tenant: SeededTenant;
  /** `${app.url}/proxy/<slug>` */
  base(slug: string): string;
  /** Polls the request log until `n` rows match (bounded), then returns them oldest first. */
  rows(n: number, where?: Record<string, unknown>, timeoutMs?: number): Promise<LoggedRequest[]>;
  setProviderKey(slug: string, apiKey?: string | null, baseUrl?: string | null): Promise<void>;
  stop(): Promise<void>;
}

export async function startProxyHarness(
  opts: { env?: Record<string, string>; providers?: string[]; role?: 'api' | 'all' } = {},
): Promise<ProxyHarness> {
  const upstream = await startFakeUpstream();
  const env: Record<string, string> = { PROXY_LOG_FLUSH_MS: '10', ...opts.env };
  for (const slug of providerSlugs) env[`PROVIDER_${slug.toUpperCase()}_BASE_URL`] ??= upstream.url;
  const app = await startTestApp({ role: opts.role ?? 'api', env });
  const tenant = await seedTenant(app);
  const setProviderKey = async (
    slug: string,
    apiKey: string | null = PROVIDER_SECRET(slug),
    baseUrl: string | null = null,
  ) => {
    const body: Record<string, unknown> = { project_id: tenant.projectId, provider: slug };
    if (apiKey) body.api_key = apiKey;
    if (baseUrl) body.base_url = baseUrl;
    const r = await api(app, 'PUT', '/api/v1/provider-keys', { token: tenant.admin.token, orgId: tenant.orgId, body });
    if (r.status !== 200 && r.status !== 201)
      throw new Error(`provider key ${slug}: ${r.status} ${JSON.stringify(r.body)}`);
  };
  for (const slug of opts.providers ?? providerSlugs) {
    await setProviderKey(
      slug,
      slug === 'ollama' ? null : PROVIDER_SECRET(slug),
      slug === 'ollama' ? upstream.url : null,
    );
  }
  const db = app.database.db;
  return {
    app,
    upstream,
    tenant,
    base: (slug) => `${app.url}/proxy/${slug}`,
    setProviderKey,
    rows: async (n, where = {}, timeoutMs = 5000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const rows = await db('requests').where(where).orderBy('created_at', 'asc');
        if (rows.length >= n) return rows;
        if (Date.now() > deadline)
          throw new Error(`expected ${n} request rows matching ${JSON.stringify(where)}, found ${rows.length}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    stop: async () => {
      await app.stop();
      await upstream.close();
    },
  };
}

/** fetch through the proxy with the tenant's full key. */
export function proxyFetch(
  h: ProxyHarness,
  slug: string,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown; key?: string | null } = {},
) {
  const headers: Record<string, string> = { ...init.headers };
  const key = init.key === undefined ? h.tenant.fullKey : init.key;
  if (key) headers.authorization = `Bearer ${key}`;
  let body: string | Buffer | undefined;
  if (init.body !== undefined) {
    body = typeof init.body === 'string' || Buffer.isBuffer(init.body) ? init.body : JSON.stringify(init.body);
    headers['content-type'] ??= 'application/json';
  }
  return fetch(`${h.base(slug)}${path}`, {
    method: init.method ?? (body !== undefined ? 'POST' : 'GET'),
    headers,
    body,
  });
}
