import { createHash } from 'node:crypto';
import http from 'node:http';
import { startProxyHarness, type ProxyHarness } from './harness';

const chat = { model: 'gpt-early-leave', messages: [{ role: 'user', content: 'hi' }] };

/** The upstream exchange's edges: a caller gone before the answer, and a caller slower than the provider. */
describe('proxy: callers that leave early or read slowly', () => {
  let h: ProxyHarness;
  beforeAll(async () => {
    h = await startProxyHarness({ providers: ['openai'] });
  });
  afterAll(() => h.stop());
  beforeEach(() => h.upstream.reset());

  it('a caller that leaves before the answer: the provider is hung up on, and the row says client_closed', async () => {
    let upstreamClosed!: () => void;
    const closed = new Promise<void>((r) => (upstreamClosed = r));
    h.upstream.handle((_req, res) => void res.on('close', () => upstreamClosed())); // never answers
    // A client that goes away closes its socket (undici's fetch, aborted, keeps it open: see docs/proxy.md).
    const call = http.request(`${h.base('openai')}/v1/chat/completions`, {
      method: 'POST',
      agent: false,
      headers: { authorization: `Bearer ${h.tenant.fullKey}`, 'content-type': 'application/json' },
    });
    const failed = new Promise<string>((r) => call.on('error', (e: NodeJS.ErrnoException) => r(e.code ?? e.message)));
    call.end(JSON.stringify(chat));
    while (h.upstream.requests.length < 1) await new Promise((r) => setTimeout(r, 10));
    call.destroy();
    expect(await failed).toBe('ECONNRESET');
    await closed;
    const [row] = await h.rows(1, { error: 'client_closed', model: 'gpt-early-leave' });
    expect(row).toMatchObject({ status_code: 499, streamed: false });
  });

  it('a slow reader of a large answer gets every byte, in order (the provider is paused, not buffered)', async () => {
    // Larger than what the kernel's socket buffers on both hops can hold, so only a pause keeps it back.
    const big = Buffer.alloc(64 * 1024 * 1024);
    let providerDone = 0;
    let readFrom = 0;
    for (let i = 0; i < big.length; i += 4) big.writeUInt32LE(i, i);
    h.upstream.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(big.length) });
      res.end(big, () => (providerDone = performance.now()));
    });
    const url = new URL(`${h.base('openai')}/v1/files/x/content`);
    const got = await new Promise<{ status: number; bytes: Buffer }>((resolve, reject) => {
      const req = http.request(url, { headers: { authorization: `Bearer ${h.tenant.fullKey}` } }, (res) => {
        const parts: Buffer[] = [];
        res.pause(); // let the socket fill up before reading anything
        setTimeout(() => {
          readFrom = performance.now();
          res.on('data', (c: Buffer) => parts.push(c));
          res.resume();
        }, 300);
        res.on('end', () => resolve({ status: res.statusCode!, bytes: Buffer.concat(parts) }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
    expect(got.status).toBe(200);
    // The provider could not finish while nobody read: the gateway paused it instead of buffering.
    expect(providerDone).toBeGreaterThan(readFrom);
    expect(got.bytes.length).toBe(big.length);
    expect(createHash('sha256').update(got.bytes).digest('hex')).toBe(createHash('sha256').update(big).digest('hex'));
    const [row] = await h.rows(1, { path: '/v1/files/x/content' });
    // Above the 32 MB parse cap: relayed whole, noted on the row.
    expect(row).toMatchObject({ status_code: 200, error: 'response_too_large_to_parse' });
  });
});
