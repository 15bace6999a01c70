import { startTestApp, type TestApp } from '../../helpers/app';
import { api, seedTenant, type SeededTenant } from '../../helpers/auth';
import { jsonIngestCalls } from './helpers';

/**
 * The SDK wire format over plain fetch: creates, updates, idempotency, concurrent writes, deletes
 * (batch and malformed input: json-ingest-batch and json-ingest-malformed).
 */
describe('JSON ingest /ingest/*', () => {
  let app: TestApp;
  let t: SeededTenant;
  beforeAll(async () => {
    app = await startTestApp({ role: 'api' });
    t = await seedTenant(app);
  });
  afterAll(() => app.stop());

  const { uid, post, patch, getTrace, iso } = jsonIngestCalls(() => ({ app, t }));

  it('creates a trace with nested spans and derives durations', async () => {
    const traceId = uid('tr');
    const t0 = Date.parse('2026-05-01T12:00:00.000Z');
    const created = await post('/ingest/traces', {
      id: traceId,
      name: 'checkout-agent',
      session_id: 'sess-1',
      user_id: 'u-1',
      metadata: { env: 'test' },
      input: { q: 'hi' },
      start_time: iso(t0),
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ success: true, data: { id: traceId, object: 'trace', created: true } });

    const parent = uid('sp');
    const child = uid('sp');
    expect(
      (
        await post('/ingest/spans', {
          id: parent,
          trace_id: traceId,
          name: 'plan',
          span_type: 'agent',
          start_time: iso(t0 + 10),
        })
      ).status,
    ).toBe(201);
    const c = await post('/ingest/spans', {
      id: child,
      trace_id: traceId,
      parent_span_id: parent,
      name: 'llm call',
      span_type: 'llm',
      model: 'gpt-4o-mini',
      input: [{ role: 'user', content: 'hi' }],
      start_time: iso(t0 + 20),
    });
    expect(c.status).toBe(201);
    expect(c.body.data).toEqual({ id: child, object: 'span', trace_id: traceId, created: true });
    const upd = await patch(`/ingest/spans/${child}`, {
      end_time: iso(t0 + 270),
      output: { content: 'hello' },
      status: 'ok',
      promptTokens: 100,
      completionTokens: 20,
    });
    expect(upd.status).toBe(200);
    expect(upd.body.data).toEqual({ id: child, object: 'span', pending_create: false });
    await patch(`/ingest/spans/${parent}`, { end_time: iso(t0 + 300) });
    await patch(`/ingest/traces/${traceId}`, {
      end_time: iso(t0 + 500),
      status: 'completed',
      output: { answer: 'done' },
    });

    const tr = await getTrace(traceId);
    expect(tr).toMatchObject({
      id: traceId,
      name: 'checkout-agent',
      status: 'completed',
      session_id: 'sess-1',
      user_id: 'u-1',
      duration_ms: 500,
      span_count: 2,
      total_tokens: 120,
    });
    expect(tr.input).toEqual({ q: 'hi' });
    expect(tr.output).toEqual({ answer: 'done' });
    const cs = tr.spans.find((s: { id: string }) => s.id === child);
    expect(cs).toMatchObject({
      parent_span_id: parent,
      span_type: 'llm',
      duration_ms: 250,
      prompt_tokens: 100,
      completion_tokens: 20,
      total_tokens: 120,
      status: 'ok',
      output: { content: 'hello' },
    });
    expect(cs.cost_usd).toBeGreaterThan(0); // model from the create, tokens from the update
    expect(tr.tree).toHaveLength(1);
    expect(tr.tree[0]).toMatchObject({ id: parent, children: [{ id: child }] });
  });

  it('treats a retried create as a replay, not a duplicate, and keeps the first version', async () => {
    const traceId = uid('tr');
    const body = { id: traceId, name: 'first', start_time: iso(Date.now()) };
    expect((await post('/ingest/traces', body)).status).toBe(201);
    const again = await post('/ingest/traces', { ...body, name: 'second' });
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual({ id: traceId, object: 'trace', created: false });
    const spanBody = { id: uid('sp'), trace_id: traceId, name: 's', start_time: iso(Date.now()) };
    expect((await post('/ingest/spans', spanBody)).status).toBe(201);
    expect((await post('/ingest/spans', spanBody)).status).toBe(200);
    const tr = await getTrace(traceId);
    expect(tr.name).toBe('first');
    expect(tr.spans).toHaveLength(1);
  });

  it('stores updates that arrive before their create, and the create fills in the rest', async () => {
    const traceId = uid('tr');
    const spanId = uid('sp');
    const t0 = Date.parse('2026-05-02T08:00:00.000Z');
    const early = await patch(`/ingest/spans/${spanId}`, {
      end_time: iso(t0 + 40),
      output: 'early output',
      metadata: { a: 1 },
    });
    expect(early.status).toBe(200);
    expect(early.body.data.pending_create).toBe(true);
    const earlyTrace = await patch(`/ingest/traces/${traceId}`, {
      output: 'trace output',
      metadata: { from: 'update' },
    });
    expect(earlyTrace.body.data.pending_create).toBe(true);
    const placeholder = await getTrace(traceId);
    expect(placeholder).toMatchObject({ pending_create: true, status: 'running', name: null });

    expect(
      (
        await post('/ingest/spans', {
          id: spanId,
          trace_id: traceId,
          name: 'late create',
          span_type: 'tool',
          output: 'create output',
          metadata: { a: 0, b: 2 },
          start_time: iso(t0),
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await post('/ingest/traces', {
          id: traceId,
          name: 'late trace',
          metadata: { from: 'create', c: 3 },
          start_time: iso(t0 - 5),
        })
      ).status,
    ).toBe(201);
    const tr = await getTrace(traceId);
    expect(tr).toMatchObject({
      name: 'late trace',
      pending_create: false,
      output: 'trace output',
      metadata: { from: 'update', c: 3 },
    });
    expect(tr.start_time).toBe('2026-05-02T07:59:59.995000Z');
    expect(tr.spans[0]).toMatchObject({
      id: spanId,
      name: 'late create',
      span_type: 'tool',
      output: 'early output',
      duration_ms: 40,
      metadata: { a: 1, b: 2 },
      pending_create: false,
    });
  });

  it('merges metadata on update and keeps fields an update does not send', async () => {
    const traceId = uid('tr');
    await post('/ingest/traces', {
      id: traceId,
      name: 'm',
      metadata: { a: 1, b: 1 },
      input: 'in',
      start_time: iso(Date.now()),
    });
    await patch(`/ingest/traces/${traceId}`, { metadata: { b: 2, c: 3 }, name: null });
    const tr = await getTrace(traceId);
    expect(tr).toMatchObject({ name: 'm', input: 'in', metadata: { a: 1, b: 2, c: 3 } });
  });

  it('accepts ids with any visible ASCII in URL paths', async () => {
    const spanId = `ns/${uid('sp')}:#1`;
    const traceId = uid('tr');
    await post('/ingest/spans', { id: spanId, trace_id: traceId, name: 's', start_time: iso(Date.now()) });
    const r = await patch(`/ingest/spans/${encodeURIComponent(spanId)}`, { output: 'x' });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ id: spanId, pending_create: false });
  });

  it('stores text PostgreSQL would refuse (NUL, lone surrogates) instead of failing', async () => {
    const traceId = uid('tr');
    const r = await post('/ingest/traces', {
      id: traceId,
      name: 'nul\u0000name',
      input: { text: 'a\u0000b \ud800 c' },
      metadata: { 'k\u0000': 'v' },
      start_time: iso(Date.now()),
    });
    expect(r.status).toBe(201);
    const tr = await getTrace(traceId);
    expect(tr.name).toBe('nulname');
    expect(tr.input).toEqual({ text: 'ab \ufffd c' });
  });

  it('writes many concurrent single requests, all acknowledged after commit', async () => {
    const traceId = uid('tr');
    const now = Date.now();
    await post('/ingest/traces', { id: traceId, name: 'concurrent', start_time: iso(now) });
    const ids = Array.from({ length: 60 }, (_, i) => `${traceId}-c${i}`);
    const results = await Promise.all(
      ids.map((id) =>
        post('/ingest/spans', { id, trace_id: traceId, name: id, start_time: iso(now), end_time: iso(now + 1) }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(ids.map(() => 201));
    // acknowledged means committed: visible right away, no waiting
    const [row] = await app.database
      .db('spans')
      .where({ project_id: t.projectId, trace_id: traceId })
      .count<{ c: number }[]>('* as c');
    expect(Number(row!.c)).toBe(60);
  });

  it('deleting traces or their project deletes their spans, placeholders included', async () => {
    const tenant = await seedTenant(app);
    const k = { token: tenant.fullKey };
    const now = Date.now();
    await api(app, 'POST', '/ingest/traces', { ...k, body: { id: 'doomed', name: 'x', start_time: iso(now) } });
    await api(app, 'POST', '/ingest/spans', {
      ...k,
      body: { id: 'doomed-s', trace_id: 'doomed', name: 's', start_time: iso(now) },
    });
    await api(app, 'POST', '/ingest/traces', { ...k, body: { id: 'kept', name: 'x', start_time: iso(now) } });
    await api(app, 'POST', '/ingest/spans', {
      ...k,
      body: { id: 'kept-s', trace_id: 'kept', name: 's', start_time: iso(now) },
    });
    await api(app, 'PATCH', '/ingest/spans/orphan-update', { ...k, body: { output: 'no trace known' } });
    const db = app.database.db;
    const spanIds = async () =>
      (await db('spans').where({ project_id: tenant.projectId }).orderBy('id')).map((r) => r.id);
    expect(await spanIds()).toEqual(['doomed-s', 'kept-s', 'orphan-update']);
    await db('traces').where({ project_id: tenant.projectId, id: 'doomed' }).delete();
    expect(await spanIds()).toEqual(['kept-s', 'orphan-update']);
    await db('projects').where({ id: tenant.projectId }).delete();
    expect(await spanIds()).toEqual([]);
    expect(await db('traces').where({ project_id: tenant.projectId })).toHaveLength(0);
  });
});
