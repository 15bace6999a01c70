import { mkdtempSync, writeFileSync } from 'node:fs';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generate } from 'selfsigned';

/**
 * A fake webhook receiver: a real HTTPS server on loopback with a certificate made at test time,
 * signed by a test CA that the service trusts through WEBHOOK_CA_FILE (TLS verification stays on).
 */

export interface TestCertificates {
  caPem: string;
  /** Path of a PEM file holding the CA: pass as WEBHOOK_CA_FILE. */
  caFile: string;
  key: string;
  cert: string;
}

let certs: Promise<TestCertificates> | undefined;

/** One CA and one server certificate (localhost, 127.0.0.1, 127.0.0.2, ::1) per test process. */
export function testCertificates(): Promise<TestCertificates> {
  certs ??= (async () => {
    const ca = await generate([{ name: 'commonName', value: 'llm-gateway test CA' }], {
      keyType: 'ec',
      algorithm: 'sha256',
      extensions: [
        { name: 'basicConstraints', cA: true, critical: true },
        { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
      ],
    });
    const leaf = await generate([{ name: 'commonName', value: 'localhost' }], {
      keyType: 'ec',
      algorithm: 'sha256',
      ca: { key: ca.private, cert: ca.cert },
      extensions: [
        { name: 'basicConstraints', cA: false },
        { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
        { name: 'extKeyUsage', serverAuth: true },
        {
          name: 'subjectAltName',
          altNames: [
            { type: 2, value: 'localhost' },
            { type: 2, value: 'receiver.test' },
            { type: 7, ip: '127.0.0.1' },
            { type: 7, ip: '127.0.0.2' },
            { type: 7, ip: '::1' },
          ],
        },
      ],
    });
    const dir = mkdtempSync(path.join(tmpdir(), 'gw-webhook-ca-'));
    const caFile = path.join(dir, 'ca.pem');
    writeFileSync(caFile, ca.cert);
    return { caPem: ca.cert, caFile, key: leaf.private, cert: leaf.cert };
  })();
  return certs;
}

interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** Raw body bytes exactly as received. */
  raw: Buffer;
  /** Real time of arrival (ms since epoch). */
  at: number;
}

export type Handler = (req: ReceivedRequest, res: ServerResponse, n: number) => void | Promise<void>;

export interface HttpsReceiver {
  url: string;
  port: number;
  host: string;
  requests: ReceivedRequest[];
  /** Replaces how the receiver answers (default: 200 `ok`). `n` counts requests from 1. */
  handle(fn: Handler): void;
  /** Resolves once at least `count` requests have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

export async function startHttpsReceiver(opts: { host?: string; handler?: Handler } = {}): Promise<HttpsReceiver> {
  const { key, cert } = await testCertificates();
  const host = opts.host ?? '127.0.0.1';
  const requests: ReceivedRequest[] = [];
  let handler: Handler = opts.handler ?? ((_r, res) => void res.end('ok'));
  const waiters: { count: number; resolve: () => void }[] = [];

  const server = https.createServer({ key, cert }, (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rec: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        raw: Buffer.concat(chunks),
        at: Date.now(),
      };
      requests.push(rec);
      for (const w of waiters.filter((w) => requests.length >= w.count)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
      Promise.resolve(handler(rec, res, requests.length)).catch((err) => {
        res.statusCode = 599;
        res.end(String(err));
      });
    });
  });
  const sockets = new Set<import('node:net').Socket>();
  server.on('secureConnection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `https://${shownHost}:${port}`,
    port,
    host,
    requests,
    handle: (fn) => {
      handler = fn;
    },
    waitFor: (count, timeoutMs = 30_000) =>
      new Promise((resolve, reject) => {
        if (requests.length >= count) return resolve(requests);
        const t = setTimeout(
          () => reject(new Error(`receiver got ${requests.length} of ${count} requests in ${timeoutMs} ms`)),
          timeoutMs,
        );
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(t);
            resolve(requests);
          },
        });
      }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Answers with a redirect to `location`. */
export const redirectTo =
  (location: string | ((n: number) => string), status = 307): Handler =>
  (_req, res, n) => {
    res.writeHead(status, { location: typeof location === 'function' ? location(n) : location });
    res.end();
  };
