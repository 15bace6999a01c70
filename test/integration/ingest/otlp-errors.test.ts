import { gzipSync } from 'node:zlib';
import { decodeStatus, encodeRequest } from '../../../src/ingest/otlp/decode';
import { startTestApp, type TestApp } from '../../helpers/app';
import { seedTenant, type SeededTenant } from '../../helpers/auth';
import { exportRequest, hex, span } from '../../unit/ingest/otlp-fixtures';

/** OTLP/HTTP's refusals against the real server, with hand-built bodies: 400, 413 and 415, storing nothing. */
describe('OTLP /v1/traces', () => {
  let app: TestApp;
  let t: SeededTenant;
  beforeAll(async () => {
    app = await startTestApp({ role: 'api' });
    t = await seedTenant(app);
  });
  afterAll(() => app.stop());

  const headers = () => ({ Authorization: `Bearer ${t.fullKey}` });

  it('refuses undecodable bodies with 400 and a google.rpc.Status, storing nothing', async () => {
    const before = await app.database.db('spans').count<{ count: number }[]>('* as count');
    const proto = await fetch(`${app.url}/v1/traces`, {
      method: 'POST',
      headers: { ...headers(), 'content-type': 'application/x-protobuf' },
      body: Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x0f, 0x01]),
    });
    expect(proto.status).toBe(400);
    expect(proto.headers.get('content-type')).toMatch(/^application\/x-protobuf/);
    expect(decodeStatus(new Uint8Array(await proto.arrayBuffer()))).toMatchObject({ code: 3 });

    for (const body of ['{"resourceSpans":[', '[]', '{"resourceSpans":"x"}']) {
      const res = await fetch(`${app.url}/v1/traces`, {
        method: 'POST',
        headers: { ...headers(), 'content-type': 'application/json' },
        body,
      });
      expect(res.status).toBe(400);
      const status = (await res.json()) as { code: number; message: unknown };
      expect(status.code).toBe(3);
      expect(typeof status.message).toBe('string');
    }
    const badGzip = await fetch(`${app.url}/v1/traces`, {
      method: 'POST',
      headers: { ...headers(), 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip' },
      body: Buffer.from('not gzip at all'),
    });
    expect(badGzip.status).toBe(400);
    const unknownEncoding = await fetch(`${app.url}/v1/traces`, {
      method: 'POST',
      headers: { ...headers(), 'content-type': 'application/json', 'content-encoding': 'compress' },
      body: '{}',
    });
    expect(unknownEncoding.status).toBe(415);
    const after = await app.database.db('spans').count<{ count: number }[]>('* as count');
    expect(after[0]!.count).toEqual(before[0]!.count);
  });

  it('refuses other content types with 415', async () => {
    for (const type of ['text/plain', 'application/grpc', 'application/xml']) {
      const res = await fetch(`${app.url}/v1/traces`, {
        method: 'POST',
        headers: { ...headers(), 'content-type': type },
        body: 'x',
      });
      expect(res.status).toBe(415);
    }
  });

  it('refuses a body above the limit after decompression with 413', async () => {
    const small = await startTestApp({ role: 'api', env: { OTLP_MAX_REQUEST_BYTES: '2048' }, database: app.database });
    try {
      const traceId = hex(16);
      const payload = encodeRequest(
        exportRequest([
          span({
            traceId,
            spanId: hex(8),
            name: 'big',
            startMs: Date.now(),
            endMs: Date.now() + 1,
            attrs: { 'gen_ai.prompt': 'z'.repeat(10_000) },
          }),
        ]),
      );
      const zipped = gzipSync(payload);
      expect(zipped.length).toBeLessThan(2048);
      const res = await fetch(`${small.url}/v1/traces`, {
        method: 'POST',
        headers: { ...headers(), 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip' },
        body: zipped,
      });
      expect(res.status).toBe(413);
      expect(decodeStatus(new Uint8Array(await res.arrayBuffer())).message).toMatch(/2048/);
    } finally {
      await small.stop();
    }
  });
});
