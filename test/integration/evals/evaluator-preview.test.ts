import { startTestApp, type TestApp } from '../../helpers/app';
import { api, seedTenant, type SeededTenant } from '../../helpers/auth';
import { sendJson, startFakeUpstream, type FakeUpstream } from '../../helpers/fake-upstream';
import { requestRow, writeRows } from '../analytics/seed';

/**
 * POST /api/v1/evaluators/preview: an evaluator definition run once on a request, as an eval run
 * would (local types and the judge through the project's key), writing no score and no audit entry.
 */
describe('evaluator preview', () => {
  let app: TestApp;
  let upstream: FakeUpstream;
  let t: SeededTenant;
  let other: SeededTenant;
  let requestId: string;
  let otherRequestId: string;
  let judgePrompt = '';
  const full = () => ({ token: t.fullKey });
  const preview = (body: unknown, who: { token: string; orgId?: string } = full()) =>
    api(app, 'POST', '/api/v1/evaluators/preview', { ...who, body });
  const target = () => ({ request_id: requestId });

  beforeAll(async () => {
    upstream = await startFakeUpstream();
    upstream.handle(async (req, res) => {
      judgePrompt = JSON.stringify(req.json?.messages ?? []);
      const content = JSON.stringify({ score: 0.8, reasoning: 'it answers the question' });
      sendJson(res, 200, {
        id: 'x',
        object: 'chat.completion',
        model: 'gpt-4o-mini',
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 },
      });
    });
    app = await startTestApp({ role: 'api', env: { PROVIDER_OPENAI_BASE_URL: upstream.url } });
    [t, other] = await Promise.all([seedTenant(app), seedTenant(app)]);
    const row = (s: SeededTenant) =>
      requestRow(
        { orgId: s.orgId, projectId: s.projectId },
        {
          log_mode: 'full',
          request_body: JSON.stringify({
            model: 'gpt-4o-mini',
            messages: [{ role: 'user', content: 'What is the capital of France?' }],
          }),
          response_body: JSON.stringify({ choices: [{ message: { role: 'assistant', content: 'Paris is.' } }] }),
        },
      );
    const [mine, theirs] = [row(t), row(other)];
    [requestId, otherRequestId] = [mine.id, theirs.id];
    await writeRows(app.database.db, [mine, theirs]);
    await api(app, 'PUT', '/api/v1/provider-keys', {
      token: t.admin.token,
      orgId: t.orgId,
      body: { project_id: t.projectId, provider: 'openai', api_key: 'sk-judge-0123456789' },
    });
  });
  afterAll(async () => {
    await app?.stop();
    await upstream?.close();
  });

  it('runs contains and regex on the request’s output and input', async () => {
    const yes = await preview({ type: 'contains', config: { value: 'paris' }, target: target() });
    expect(yes.status).toBe(200);
    expect(yes.body.data).toEqual({
      data_type: 'boolean',
      value: 1,
      string_value: 'true',
      comment: null,
      judge: null,
      target: {
        type: 'request',
        id: requestId,
        trace_id: null,
        project_id: t.projectId,
        input: 'What is the capital of France?',
        output: 'Paris is.',
        latency_ms: 100,
        cost_usd: 0.001,
      },
    });
    const no = await preview({ type: 'contains', config: { value: 'paris', case_sensitive: true }, target: target() });
    expect(no.body.data).toMatchObject({ value: 0, string_value: 'false' });
    const regex = { type: 'regex', config: { pattern: '^what\\b', flags: 'i', field: 'input' }, target: target() };
    expect((await preview(regex)).body.data.value).toBe(1);
    // JWT callers name no project: the request's own is found among the organization's.
    const asEditor = { token: t.editor.token, orgId: t.orgId };
    expect((await preview({ ...regex, config: { pattern: 'Berlin' } }, asEditor)).body.data.value).toBe(0);
  });

  it('runs levenshtein: 1 − distance / longer length', async () => {
    // "Paris is." → "Paris": 4 deletions over 9 characters.
    const r = await preview({ type: 'levenshtein', config: { expected: 'Paris' }, target: target() });
    expect(r.body.data).toMatchObject({ data_type: 'numeric', value: 0.555556, comment: 'edit distance 4' });
  });

  it('runs llm_judge through the project’s key and reads its verdict as an eval run does', async () => {
    const r = await preview({
      type: 'llm_judge',
      config: {
        provider: 'openai',
        model: 'gpt-4o-mini',
        template: 'Q: {{input}}\nA: {{output}}',
        output: { type: 'numeric', min: 0, max: 1 },
      },
      target: target(),
    });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ data_type: 'numeric', value: 0.8, comment: 'it answers the question' });
    expect(judgePrompt).toContain('Q: What is the capital of France?\\nA: Paris is.');
    const judge = r.body.data.judge;
    expect(judge.request_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(judge.cost_usd).toBeGreaterThan(0);
    // The judge call is a request row of the project, tagged as a preview of this target.
    const row = await app.database.db('requests').where({ id: judge.request_id }).first('project_id', 'properties');
    expect(row).toMatchObject({ project_id: t.projectId });
    expect(row.properties).toMatchObject({ 'eval.target': `request:${requestId}`, 'eval.preview': 'true' });
  });

  it('runs on a trace and on one of its spans', async () => {
    const db = app.database.db;
    const now = new Date().toISOString();
    await db('traces').insert({
      project_id: t.projectId,
      org_id: t.orgId,
      id: 'tr-preview',
      input: JSON.stringify('plan the trip'),
      output: JSON.stringify({ answer: 'done' }),
      start_time: now,
    });
    await db('spans').insert({
      project_id: t.projectId,
      id: 'sp-1',
      trace_id: 'tr-preview',
      input: JSON.stringify('search flights'),
      output: JSON.stringify('3 flights found'),
      start_time: now,
    });
    const body = { type: 'contains', config: { value: 'flights' } };
    const trace = await preview({ ...body, target: { trace_id: 'tr-preview' } });
    expect(trace.body.data).toMatchObject({
      value: 0,
      target: { type: 'trace', id: 'tr-preview', output: '{"answer":"done"}' },
    });
    const span = await preview({ ...body, target: { trace_id: 'tr-preview', span_id: 'sp-1' } });
    expect(span.body.data).toMatchObject({
      value: 1,
      target: { type: 'span', id: 'sp-1', trace_id: 'tr-preview', input: 'search flights', output: '3 flights found' },
    });
    expect((await preview({ ...body, target: { trace_id: 'tr-preview', span_id: 'nope' } })).body.error).toMatch(
      /Span not found/,
    );
  });

  it('writes no score and no audit entry', async () => {
    const scores = await api(app, 'GET', `/api/v1/scores?request_id=${requestId}`, full());
    expect(scores.status).toBe(200);
    expect(scores.body.data).toEqual([]);
    const audit = await app.database.db('audit_logs').where({ org_id: t.orgId }).whereLike('action', 'evaluator.%');
    expect(audit).toEqual([]);
  });

  it('refuses viewers, public keys, other organizations’ requests and bad definitions', async () => {
    const body = { type: 'contains', config: { value: 'x' }, target: target() };
    expect((await preview(body, { token: t.viewer.token, orgId: t.orgId })).status).toBe(403);
    expect((await preview(body, { token: t.publicKey })).status).toBe(403);
    const foreign = await preview({ ...body, target: { request_id: otherRequestId } });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toMatch(/Request not found/);
    expect((await preview({ ...body, target: { trace_id: 'no-such-trace' } })).body.error).toMatch(/Trace not found/);
    const bad = await preview({ type: 'regex', config: { pattern: '(' }, target: target() });
    expect({ status: bad.status, code: bad.body.code }).toEqual({ status: 400, code: 'invalid_evaluator' });
    expect((await preview({ type: 'contains', config: { value: 'x' } })).status).toBe(400);
    expect((await preview({ ...body, name: 'n' })).status).toBe(400);
  });

  it('answers 422 evaluation_failed when the evaluation cannot succeed', async () => {
    const r = await preview({ type: 'exact_match', config: { expected_path: '$.metadata.gold' }, target: target() });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ success: false, code: 'evaluation_failed' });
    expect(r.body.error).toContain('nothing at $.metadata.gold');
  });
});
