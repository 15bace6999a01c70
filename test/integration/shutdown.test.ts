import express from 'express';
import net from 'node:net';
import { listen } from '../../src/server';
import { startTestApp } from '../helpers/app';

describe('graceful shutdown', () => {
  it('lets in-flight requests finish and refuses new connections', async () => {
    const app = express();
    let arrived!: () => void;
    const running = new Promise<void>((r) => (arrived = r));
    app.get('/slow', async (_req, res) => {
      arrived();
      await new Promise((r) => setTimeout(r, 400));
      res.json({ done: true });
    });
    const server = await listen(app, 0, '127.0.0.1');
    const inFlight = fetch(`${server.url}/slow`);
    await running;
    const closed = server.close(5_000);
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ done: true });
    await closed;
    await expect(fetch(`${server.url}/slow`)).rejects.toThrow();
  });

  it(
    'drains kept-alive connections: the running call ends ' + 'with Connection: close, later calls never reach the app',
    async () => {
      const app = express();
      let hits = 0;
      app.get('/slow', async (_req, res) => {
        hits++;
        await new Promise((r) => setTimeout(r, 400));
        res.json({ done: true });
      });
      app.get('/fast', (_req, res) => void (hits++, res.json({ ok: true })));
      const server = await listen(app, 0, '127.0.0.1');
      const open = async () => {
        const socket = net.connect(server.port, '127.0.0.1');
        const got = { text: '', closed: false };
        socket.on('data', (d) => (got.text += d));
        socket.on('close', () => (got.closed = true));
        await new Promise((r) => socket.once('connect', r));
        return { socket, got };
      };
      const idle = await open(); // a keep-alive connection between two calls
      idle.socket.write('GET /fast HTTP/1.1\r\nHost: t\r\n\r\n');
      const busy = await open(); // a call in flight; the next one pipelined behind it
      busy.socket.write('GET /slow HTTP/1.1\r\nHost: t\r\n\r\n');
      const partial = await open(); // a call whose headers are still arriving
      partial.socket.write('GET /fast HTTP/1.1\r\nHost: t\r\n');
      await new Promise((r) => setTimeout(r, 100));
      expect(idle.got.text).toMatch(/\r\nconnection: keep-alive\r\n/i);

      const started = Date.now();
      const closed = server.close(5_000);
      busy.socket.write('GET /fast HTTP/1.1\r\nHost: t\r\n\r\n');
      partial.socket.write('\r\n');
      await closed;
      const took = Date.now() - started;
      for (let i = 0; i < 100 && ![idle, busy, partial].every((c) => c.got.closed); i++)
        await new Promise((r) => setTimeout(r, 10));

      // The process may exit as soon as the running call is done, not at the deadline.
      expect(took).toBeLessThan(3_000);
      expect(hits).toBe(2); // the first /fast and /slow: nothing that arrived after the signal ran
      expect(idle.got.closed).toBe(true);
      expect(busy.got.text.match(/^HTTP\/1\.1 \d+/gm)).toEqual(['HTTP/1.1 200']);
      expect(busy.got.text).toMatch(/\r\nconnection: close\r\n/i);
      expect(busy.got.text).toContain('{"done":true}');
      expect(partial.got.text).toMatch(/^HTTP\/1\.1 503 /);
      expect(partial.got.text).toMatch(/\r\nconnection: close\r\n/i);
      expect(partial.got.text).toMatch(/\r\nretry-after: 1\r\n/i);
      expect(JSON.parse(partial.got.text.slice(partial.got.text.indexOf('\r\n\r\n') + 4))).toMatchObject({
        success: false,
        code: 'shutting_down',
      });
    },
  );

  it("does not wait for a connection that never sent a byte (a client's spare connection)", async () => {
    const app = express();
    app.get('/fast', (_req, res) => void res.json({ ok: true }));
    const server = await listen(app, 0, '127.0.0.1');
    const spare = net.connect(server.port, '127.0.0.1');
    await new Promise((r) => spare.once('connect', r));
    const gone = new Promise<void>((r) => spare.once('close', () => r()));
    await new Promise((r) => setTimeout(r, 50)); // accepted on the server's side
    const started = Date.now();
    await server.close(5_000);
    await gone;
    // Before, Node counted it as a request in progress and the drain waited the whole 5 s.
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('a connection opened just before the drain still gets its answer (503, not a reset)', async () => {
    const app = express();
    app.get('/fast', (_req, res) => void res.json({ ok: true }));
    const server = await listen(app, 0, '127.0.0.1');
    const late = net.connect(server.port, '127.0.0.1');
    let text = '';
    late.on('data', (d) => (text += d));
    const ended = new Promise<string>((r) => {
      late.once('error', (err) => r(`error ${(err as NodeJS.ErrnoException).code}`));
      late.once('close', () => r('closed'));
    });
    await new Promise((r) => late.once('connect', r));
    await new Promise((r) => setTimeout(r, 20)); // accepted on the server's side
    const closed = server.close(5_000);
    await new Promise((r) => setTimeout(r, 100)); // its request arrives after the drain began
    late.write('GET /fast HTTP/1.1\r\nHost: t\r\n\r\n');
    expect(await ended).toBe('closed');
    await closed;
    expect(text).toMatch(/^HTTP\/1\.1 503 /);
    expect(text).toMatch(/\r\nconnection: close\r\n/i);
  });

  it('runs drain hooks after the server stops accepting, then closes the pool', async () => {
    const app = await startTestApp({ role: 'api' });
    const events: string[] = [];
    app.runtime.ctx.onShutdown(async () => {
      // The server no longer accepts connections when drain hooks run…
      await fetch(`${app.url}/health`).then(
        () => events.push('server still accepting'),
        () => events.push('server closed'),
      );
      // …and the database is still usable so queued writes can be flushed.
      await app.runtime.ctx.db.raw('select 1');
      events.push('drained');
    });
    await app.stop();
    expect(events).toEqual(['server closed', 'drained']);
    await expect(app.runtime.ctx.db.raw('select 1')).rejects.toThrow();
  });
});
