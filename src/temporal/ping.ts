import http2 from 'node:http2';

const METHOD = '/temporal.api.workflowservice.v1.WorkflowService/DescribeNamespace';

/** Protobuf varint (a string field's length). */
function varint(n: number): number[] {
  const out: number[] = [];
  for (; n > 0x7f; n >>>= 7) out.push((n & 0x7f) | 0x80);
  out.push(n);
  return out;
}

/** One gRPC message: DescribeNamespaceRequest { string namespace = 1 }, behind gRPC's 5-byte frame header. */
function describeNamespaceFrame(namespace: string): Buffer {
  const name = Buffer.from(namespace, 'utf8');
  const message = Buffer.concat([Buffer.from([0x0a, ...varint(name.length)]), name]);
  const header = Buffer.alloc(5);
  header.writeUInt32BE(message.length, 1);
  return Buffer.concat([header, message]);
}

/**
 * DescribeNamespace over plain HTTP/2 with a hand-encoded request: a cheap round trip proving the
 * frontend answers for our namespace, for `/health`. It needs neither the Temporal client SDK nor
 * gRPC's library, whose protos and channels hold ~12 MB of heap that an api serving only the proxy
 * would otherwise load for its probes (docs/proxy.md#memory-at-start). Resolves on gRPC status 0.
 */
export function pingTemporal(address: string, namespace: string, timeoutMs = 2_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(`http://${address}`);
    const fail = (err: Error) => {
      session.destroy();
      reject(err);
    };
    const timer = setTimeout(() => fail(new Error(`temporal: no answer within ${timeoutMs} ms`)), timeoutMs);
    session.on('error', fail);
    const stream = session.request({
      ':method': 'POST',
      ':path': METHOD,
      'content-type': 'application/grpc',
      te: 'trailers',
    });
    let status: string | undefined;
    // gRPC puts its status in the trailers, or in the headers of a trailers-only answer (an error).
    const read = (h: http2.IncomingHttpHeaders) => (status ??= h['grpc-status'] as string | undefined);
    stream.on('response', read);
    stream.on('trailers', read);
    stream.on('error', fail);
    stream.resume(); // the namespace's description is not needed
    stream.on('close', () => {
      clearTimeout(timer);
      session.close();
      if (status === '0') resolve();
      else reject(new Error(`temporal: DescribeNamespace answered gRPC status ${status ?? 'none'}`));
    });
    stream.end(describeNamespaceFrame(namespace));
  });
}
