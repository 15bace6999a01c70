import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError } from '../../../src/config';
import { SafeHttpClient, safeHttpClientFromConfig, type Resolver } from '../../../src/webhooks/safe-http';
import { signBody } from '../../../src/webhooks/signing';
import { redirectTo, startHttpsReceiver, testCertificates, type HttpsReceiver } from '../../helpers/https-receiver';

/**
 * The safe HTTP module against real HTTPS servers on loopback. 127.0.0.1 is reachable only because
 * the allow-list says so; 127.0.0.2 (a second receiver) stays forbidden and must never be reached.
 */
describe('SafeHttpClient', () => {
  let a: HttpsReceiver; // 127.0.0.1: allow-listed
  let b: HttpsReceiver; // 127.0.0.2: loopback, not allow-listed
  let plain: http.Server; // plain HTTP on 127.0.0.1
  let plainHits = 0;
  let client: SafeHttpClient;
  const clients: SafeHttpClient[] = [];
  const make = (opts: ConstructorParameters<typeof SafeHttpClient>[0]) => {
    const c = new SafeHttpClient(opts);
    clients.push(c);
    return c;
  };
  const secret = 'a'.repeat(32);
  const body = JSON.stringify({ event: 'test', webhook_id: 'w', timestamp: '2025-01-01T00:00:00.000Z' });
  const headers = { 'X-Service-Signature': signBody(body, secret), 'X-Service-Delivery-Id': 'd-1' };

  beforeAll(async () => {
    const { caPem } = await testCertificates();
    a = await startHttpsReceiver();
    b = await startHttpsReceiver({ host: '127.0.0.2' });
    plain = http.createServer((_req, res) => {
      plainHits++;
      res.end('ok');
    });
    await new Promise<void>((r) => plain.listen(0, '127.0.0.1', r));
    client = make({ allowPrivateCidrs: '127.0.0.1/32', extraCaPem: caPem });
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await Promise.all([a.close(), b.close(), new Promise((r) => plain.close(r))]);
  });
  beforeEach(() => {
    a.requests.length = 0;
    b.requests.length = 0;
    plainHits = 0;
    a.handle((_r, res) => void res.end('ok'));
    b.handle((_r, res) => void res.end('ok'));
  });

  it('POSTs the exact bytes with the signature and delivery id headers; 2xx is success', async () => {
    a.handle((_r, res) => {
      res.statusCode = 204;
      res.end();
    });
    const out = await client.post(`${a.url}/hook`, body, headers);
    expect(out).toMatchObject({ ok: true, httpStatus: 204, errorMessage: null, redirects: 0 });
    expect(out.durationMs).toBeGreaterThanOrEqual(0);
    const [req] = a.requests;
    expect(req!.method).toBe('POST');
    expect(req!.path).toBe('/hook');
    expect(req!.raw.toString('utf8')).toBe(body);
    expect(req!.headers['content-type']).toBe('application/json');
    expect(req!.headers['x-service-signature']).toBe(signBody(req!.raw, secret));
    expect(req!.headers['x-service-delivery-id']).toBe('d-1');
  });

  it('reports non-2xx as `HTTP <status>`', async () => {
    a.handle((_r, res) => {
      res.statusCode = 500;
      res.end('boom');
    });
    expect(await client.post(a.url, body, headers)).toMatchObject({
      ok: false,
      httpStatus: 500,
      errorMessage: 'HTTP 500',
    });
    a.handle((_r, res) => {
      res.statusCode = 304;
      res.end();
    });
    expect(await client.post(a.url, body, headers)).toMatchObject({
      ok: false,
      httpStatus: 304,
      errorMessage: 'HTTP 304',
    });
  });

  it.each([1, 2, 3])('follows %i redirect(s), each hop receiving the same signed POST', async (hops) => {
    a.handle((req, res) => {
      const n = Number(new URL(req.path, 'https://x').searchParams.get('hop') ?? 0);
      if (n < hops) {
        res.writeHead(n % 2 ? 302 : 308, { location: `/next?hop=${n + 1}` });
        return void res.end();
      }
      res.end('done');
    });
    const out = await client.post(`${a.url}/start?hop=0`, body, headers);
    expect(out).toMatchObject({ ok: true, httpStatus: 200, redirects: hops });
    expect(a.requests).toHaveLength(hops + 1);
    for (const r of a.requests) {
      expect(r.method).toBe('POST');
      expect(r.raw.toString()).toBe(body);
      expect(r.headers['x-service-signature']).toBe(headers['X-Service-Signature']);
      expect(r.headers['x-service-delivery-id']).toBe('d-1');
    }
  });

  it('fails the attempt on a 4th redirect without following it', async () => {
    a.handle(redirectTo((n) => `/r${n}`, 307));
    const out = await client.post(`${a.url}/r0`, body, headers);
    expect(out).toMatchObject({
      ok: false,
      httpStatus: 307,
      redirects: 3,
      errorMessage: 'too many redirects (more than 3)',
    });
    expect(a.requests).toHaveLength(4);
  });

  it('does not follow a redirect to plain http://', async () => {
    const port = (plain.address() as AddressInfo).port;
    a.handle(redirectTo(`http://127.0.0.1:${port}/hook`, 301));
    const out = await client.post(a.url, body, headers);
    expect(out).toMatchObject({ ok: false, httpStatus: 301, redirects: 0 });
    expect(out.errorMessage).toMatch(/not HTTPS/);
    expect(plainHits).toBe(0);
  });

  it.each([
    ['another loopback address', () => `https://127.0.0.2:${b.port}/x`, /blocked address 127\.0\.0\.2 \(loopback\)/],
    [
      'IPv4-mapped IPv6 loopback',
      () => `https://[::ffff:127.0.0.2]:${b.port}/x`,
      /blocked address 127\.0\.0\.2 for \[::ffff:7f00:2\] \(loopback\)/,
    ],
    ['a decimal IP literal', () => `https://2130706434:${b.port}/x`, /blocked address 127\.0\.0\.2 \(loopback\)/],
    [
      'cloud metadata',
      () => 'https://169.254.169.254/latest/meta-data/',
      /blocked address 169\.254\.169\.254 \(cloud metadata\)/,
    ],
    ['a private range', () => 'https://10.0.0.1/', /blocked address 10\.0\.0\.1 \(private\)/],
  ])('refuses a redirect to %s without connecting', async (_name, location, message) => {
    a.handle(redirectTo(location(), 302));
    const out = await client.post(a.url, body, headers);
    expect(out.ok).toBe(false);
    expect(out.httpStatus).toBe(302);
    expect(out.errorMessage).toMatch(message);
    expect(b.requests).toHaveLength(0);
  });

  it('refuses a redirect to a hostname that resolves to a forbidden address (checked at connect)', async () => {
    const resolve: Resolver = async (host) =>
      host === 'receiver.test' ? [{ address: '127.0.0.2', family: 4 }] : [{ address: '127.0.0.1', family: 4 }];
    const c = make({ allowPrivateCidrs: '127.0.0.1/32', extraCaPem: (await testCertificates()).caPem, resolve });
    a.handle(redirectTo(`https://receiver.test:${b.port}/x`, 307));
    const out = await c.post(a.url, body, headers);
    expect(out).toMatchObject({ ok: false, httpStatus: 307 });
    expect(out.errorMessage).toMatch(/blocked address 127\.0\.0\.2 for receiver\.test \(loopback\)/);
    expect(b.requests).toHaveLength(0);
  });

  it(
    'refuses hostnames that resolve to 127.0.0.1 when ' + 'loopback is not allow-listed (localhost and custom DNS)',
    async () => {
      const { caPem } = await testCertificates();
      const strict = make({
        extraCaPem: caPem,
        resolve: async (h) => (h === 'receiver.test' ? [{ address: '127.0.0.1', family: 4 }] : []),
      });
      const out = await strict.post(`https://receiver.test:${a.port}/`, body, headers);
      expect(out).toMatchObject({ ok: false, httpStatus: null });
      expect(out.errorMessage).toMatch(/blocked address 127\.0\.0\.1 for receiver\.test \(loopback\)/);

      const systemDns = make({ extraCaPem: caPem });
      const viaLocalhost = await systemDns.post(`https://localhost:${a.port}/`, body, headers);
      expect(viaLocalhost.ok).toBe(false);
      expect(viaLocalhost.errorMessage).toMatch(/blocked address (127\.0\.0\.1|::1) for localhost \(loopback\)/);
      const literal = await systemDns.post(`${a.url}/`, body, headers);
      expect(literal.errorMessage).toBe('blocked address 127.0.0.1 (loopback)');
      expect(a.requests).toHaveLength(0);
    },
  );

  it('re-resolves at every connection, so a rebinding answer is caught', async () => {
    const { caPem } = await testCertificates();
    let calls = 0;
    const rebinding: Resolver = async () => [{ address: ++calls === 1 ? '127.0.0.1' : '127.0.0.2', family: 4 }];
    const c = make({ allowPrivateCidrs: '127.0.0.1/32', extraCaPem: caPem, resolve: rebinding });
    a.handle((_r, res) => {
      res.setHeader('connection', 'close');
      res.end('ok');
    });
    const url = `https://receiver.test:${a.port}/`;
    expect(await c.post(url, body, headers)).toMatchObject({ ok: true });
    const second = await c.post(url, body, headers);
    expect(second.ok).toBe(false);
    expect(second.errorMessage).toMatch(/blocked address 127\.0\.0\.2/);
    expect(a.requests).toHaveLength(1);
  });

  it('keeps TLS verification on: a receiver whose CA is not trusted fails with a TLS error', async () => {
    const untrusting = make({ allowPrivateCidrs: '127.0.0.1/32' });
    const out = await untrusting.post(a.url, body, headers);
    expect(out.ok).toBe(false);
    expect(out.errorMessage).toMatch(/^TLS error: /);
    expect(a.requests).toHaveLength(0);
  });

  it('reports refused connections as connection errors', async () => {
    const probe = await startHttpsReceiver();
    const url = probe.url;
    await probe.close();
    const out = await client.post(url, body, headers);
    expect(out).toMatchObject({ ok: false, httpStatus: null });
    expect(out.errorMessage).toMatch(/^connection error: ECONNREFUSED/);
  });

  it('reads only a small cap of a huge response body and does not wait for the rest', async () => {
    a.handle((_r, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const timer = setInterval(() => res.write(chunk), 5);
      res.on('close', () => clearInterval(timer));
    });
    const out = await client.post(a.url, body, headers);
    expect(out).toMatchObject({ ok: true, httpStatus: 200 });
    expect(out.durationMs).toBeLessThan(9_000);
  });

  it('gives up after 10 s in total and closes the connection', async () => {
    let closed = false;
    a.handle((_r, res) => {
      res.on('close', () => {
        closed = true;
      });
      // never answers
    });
    const out = await client.post(a.url, body, headers);
    expect(out).toMatchObject({ ok: false, httpStatus: null, errorMessage: 'timeout after 10 s' });
    expect(out.durationMs).toBeGreaterThanOrEqual(9_900);
    await new Promise((r) => setTimeout(r, 200));
    expect(closed).toBe(true);
  }, 20_000);

  it('rejects non-https and credential URLs before any I/O', async () => {
    expect(
      (await client.post(`http://127.0.0.1:${(plain.address() as AddressInfo).port}/`, body, headers)).errorMessage,
    ).toMatch(/not HTTPS/);
    expect((await client.post(`https://u:p@127.0.0.1:${a.port}/`, body, headers)).errorMessage).toBe(
      'URL must not contain credentials',
    );
    expect((await client.post('not a url', body, headers)).errorMessage).toBe('invalid URL');
    expect(plainHits).toBe(0);
    expect(a.requests).toHaveLength(0);
  });

  it('refuses an unreadable or non-PEM WEBHOOK_CA_FILE with an error naming the variable', () => {
    expect(() =>
      safeHttpClientFromConfig({ WEBHOOK_ALLOW_PRIVATE_CIDRS: '', WEBHOOK_CA_FILE: '/nonexistent/ca.pem' }),
    ).toThrow(ConfigError);
    expect(() => safeHttpClientFromConfig({ WEBHOOK_ALLOW_PRIVATE_CIDRS: '', WEBHOOK_CA_FILE: __filename })).toThrow(
      /WEBHOOK_CA_FILE: .* holds no PEM certificate/,
    );
  });
});
