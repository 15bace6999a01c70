import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { AppListener } from './http/fast-path';

export interface RunningServer {
  server: http.Server;
  port: number;
  url: string;
  /**
   * Drains and stops: no new connections; idle keep-alive connections closed at once (and, after
   * SPARE_GRACE_MS of silence, connections that never sent a byte); requests
   * already running finish with `Connection: close`; a request that still arrives on an open
   * connection gets 503 + `Connection: close` + `Retry-After` before any work. Resolves when the
   * last connection is gone, or cuts the rest at timeoutMs.
   */
  close(timeoutMs?: number): Promise<void>;
}

/** How long, once the drain starts, a connection may stay silent before it counts as a client's spare. */
const SPARE_GRACE_MS = 250;

const SHUTTING_DOWN = JSON.stringify({
  success: false,
  error: 'The server is shutting down: retry on a new connection',
  code: 'shutting_down',
});

export function listen(app: AppListener, port: number, host: string): Promise<RunningServer> {
  let draining = false;
  const running = new Set<http.ServerResponse>();
  // After the drain starts every answer closes its connection, so a keep-alive client (a load
  // balancer, an SDK's agent) moves to another replica instead of sending us its next call.
  const closeAfter = (res: http.ServerResponse) => {
    if (!res.headersSent) return void res.setHeader('connection', 'close');
    // Headers already out (a stream) said keep-alive: end the socket once the answer is complete
    // (taken now: Node detaches it from the response on finish).
    const socket = res.socket;
    res.once('finish', () => socket?.end());
  };
  const server = http.createServer(app.serverOptions ?? {}, (req, res) => {
    if (draining) {
      res.writeHead(503, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(SHUTTING_DOWN),
        connection: 'close',
        'retry-after': '1',
      });
      res.end(SHUTTING_DOWN);
      return;
    }
    running.add(res);
    res.once('close', () => running.delete(res));
    app(req, res);
  });
  // Node counts a connection that has not sent a byte as busy (its headers timer runs), so
  // closeIdleConnections leaves it open and the drain would wait out the timeout. Clients open such
  // spare connections (undici's fetch does, around a cancelled stream): the drain cuts them.
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  // Long enough for slow model calls and streams; the proxy applies its own upstream timeouts.
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;
  server.keepAliveTimeout = 65_000;
  // Requests Node's parser refuses before Express sees them still get the error envelope.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (!socket.writable || (socket as { _httpMessage?: unknown })._httpMessage) return socket.destroy();
    const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
    const status = tooLarge ? 431 : 400;
    const body = JSON.stringify(
      tooLarge
        ? { success: false, error: 'Request line or headers are too large', code: 'headers_too_large' }
        : { success: false, error: 'Malformed HTTP request', code: 'bad_request' },
    );
    socket.end(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\n` +
        'content-type: application/json; charset=utf-8\r\n' +
        `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
  let closing: Promise<void> | undefined;
  const close = (timeoutMs = 10_000) =>
    (closing ??= new Promise<void>((done) => {
      draining = true;
      for (const res of running) closeAfter(res);
      const force = setTimeout(() => server.closeAllConnections(), timeoutMs);
      force.unref();
      server.close(() => {
        clearTimeout(force);
        done();
      });
      server.closeIdleConnections();
      // A connection opened just before the drain may have its request on the way: it gets a moment to
      // send it (and so the 503 below) before silence marks it as a spare.
      const spares = setTimeout(() => {
        for (const socket of sockets) if (socket.bytesRead === 0) socket.destroy();
      }, SPARE_GRACE_MS);
      spares.unref();
    }));
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const actual = (server.address() as AddressInfo).port;
      const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
      resolve({ server, port: actual, url: `http://${shownHost}:${actual}`, close });
    });
  });
}
