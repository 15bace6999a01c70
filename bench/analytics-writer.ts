/**
 * The request-log writer's side of `bench:analytics` (bench/analytics.ts): rows per second of the
 * writer's batches without rollup maintenance and with it, in alternating rounds.
 */
import { randomUUID } from 'node:crypto';
import { createRollupFolder } from '../src/analytics/fold';
import type { createDb } from '../src/db/knex';
import { createLogger } from '../src/logger';
import { insertRequestRows, type RequestRow } from '../src/requests/writer';
import type { SeededTenant } from '../test/helpers/auth';
import { MODELS } from './analytics-data';

const log = (m: string) => process.stderr.write(`[bench] ${m}\n`);

/** Rows per second of the writer's insert without rollups and with them, four ways, alternating rounds. */
export async function writerThroughput(db: ReturnType<typeof createDb>, t: SeededTenant): Promise<string> {
  try {
    return await writerRounds(db, t);
  } finally {
    await db.destroy();
  }
}

/**
 * `marks`: the write path's own cost (the pending marks in the batch transaction; the fold runs
 * after the round, untimed, as on another process). `alongside`: the api's debounced fold runs
 * during the round, competing for the same two cores; timed until the last batch commits, the fold
 * left over after that reported apart. `folded`: timed until everything is folded, rows carrying
 * rolled-up custom properties (the fold adds their property rollups too); `folded-plain`: the same
 * with rows without properties, so the difference is what property rollups cost the fold.
 */
async function writerRounds(db: ReturnType<typeof createDb>, t: SeededTenant): Promise<string> {
  const rounds = 3;
  const perRound = 50_000;
  const modes = ['without', 'marks', 'alongside', 'folded', 'folded-plain'] as const;
  const result: Record<string, number[]> = Object.fromEntries(modes.map((m) => [m, []]));
  const leftover: number[] = [];
  const folder = createRollupFolder(db, createLogger('warn'), 1000);
  for (let r = 0; r < rounds; r++) {
    for (const mode of modes) {
      const rows = Array.from({ length: perRound }, (_, i) => writerRow(t, i, mode !== 'folded-plain'));
      const t0 = performance.now();
      for (let i = 0; i < rows.length; i += 500) {
        const batch = rows.slice(i, i + 500).map((row) => ({ row }));
        await db.transaction((trx) => insertRequestRows(trx, batch, { rollups: mode !== 'without' }));
        if (mode !== 'without' && mode !== 'marks') folder.poke();
      }
      if (mode.startsWith('folded')) await folder.drain();
      result[mode]!.push(perRound / ((performance.now() - t0) / 1000));
      const t1 = performance.now();
      await folder.drain();
      if (mode === 'alongside') leftover.push(performance.now() - t1);
      log(`writer ${mode}: ${result[mode]!.at(-1)!.toFixed(0)} rows/s`);
    }
  }
  const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
  const base = mean(result.without!);
  const left = leftover.map((v) => (v / 1000).toFixed(1)).join(' / ');
  const label = {
    without: 'without rollups',
    marks: 'with rollups: pending marks in the batch transaction (fold elsewhere)',
    alongside: `with rollups: the api's fold running alongside (fold left after the round: ${left} s)`,
    folded: 'with rollups: timed until every row is folded (rows carry 2 rolled-up properties)',
    'folded-plain': 'with rollups: timed until every row is folded, rows without properties (no property rollup work)',
  };
  return modes
    .map((m) => {
      const runs = result[m]!.map((v) => v.toFixed(0)).join(' / ');
      const vs = ((mean(result[m]!) / base - 1) * 100).toFixed(1);
      return `| ${label[m]} | ${runs} | ${mean(result[m]!).toFixed(0)} | ${vs} % |`;
    })
    .join('\n');
}

function writerRow(t: SeededTenant, i: number, properties = true): RequestRow {
  const [provider, model] = MODELS[i % MODELS.length]!;
  return {
    id: randomUUID(),
    org_id: t.orgId,
    project_id: t.projectId,
    api_key_id: t.fullKeyId,
    provider,
    model,
    method: 'POST',
    path: '/v1/chat/completions',
    prompt_tokens: 300,
    completion_tokens: 100,
    total_tokens: 400,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    cost_usd: 0.0004,
    latency_ms: 200 + (i % 700),
    ttfb_ms: i % 3 ? null : 80,
    status_code: i % 50 ? 200 : 500,
    trace_id: null,
    span_id: null,
    user_id: `user-${i % 1000}`,
    session_id: `user-${i % 1000}-w`,
    request_body: '{"model":"x","messages":[{"role":"user","content":"hello"}]}',
    response_body: '{"choices":[]}',
    log_mode: 'full',
    cache_hit: false,
    streamed: i % 3 === 0,
    tokens_estimated: false,
    self_hosted: false,
    prompt_version_id: null,
    error: null,
    created_at: new Date().toISOString(),
    properties: properties ? { env: 'prod', tier: (['free', 'pro', 'enterprise'] as const)[i % 3]! } : null,
    cost_saved_usd: null,
  };
}
