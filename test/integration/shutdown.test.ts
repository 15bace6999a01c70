import express from 'express';
import { listen } from '../../src/server';
import { startTestApp } from '../helpers/app';

describe('graceful shutdown', () => {
  it('lets in-flight requests finish and refuses new connections', async () => {
    const app = express();
    app.get('/slow', async (_req, res) => {
      await new Promise((r) => setTimeout(r, 400));
      res.json({ done: true });
    });
    const server = await listen(app, 0, '127.0.0.1');
    const inFlight = fetch(`${server.url}/slow`);
    await new Promise((r) => setTimeout(r, 50));
    const closed = server.close(5_000);
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ done: true });
    await closed;
    await expect(fetch(`${server.url}/slow`)).rejects.toThrow();
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
