import type { Knex } from 'knex';
import { recordAudit } from '../audit/audit';
import type { Principal } from '../auth/principal';
import { targetIds } from '../eval-runs/service';
import { badRequest, notFound } from '../http/errors';
import { oneProject } from '../score-configs/service';
import { cohensKappa, fleissKappa, krippendorffAlpha } from './agreement';
import type { AddItemsInput, CreateHumanEvalInput, TargetRef } from './schemas';
import { isoText } from '../db/convert';
import * as q from './queries';
import type { Scope } from '../http/route';

/** Human evals: review campaigns over targets with score configs (docs/human-evals.md). */
type Stats = typeof import('simple-statistics', { with: { 'resolution-mode': 'import' } });
// Required on first use: heap that a process never computing agreement need not hold.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- CommonJS build, ESM types
const stats = () => require('simple-statistics') as Stats;

function targetKey(t: TargetRef): string {
  if ('request_id' in t) return `request:${t.request_id}`;
  if ('session_id' in t) return `session:${t.session_id}`;
  if ('experiment_id' in t) return `experiment:${t.experiment_id}/${t.experiment_item_id}/${t.repetition ?? 0}`;
  return t.span_id ? `span:${t.trace_id}/${t.span_id}` : `trace:${t.trace_id}`;
}

async function view(db: Knex, e: q.HumanEvalRecord) {
  const { reviewers, items, slots: s, by } = await q.progressRows(db, e.id);
  return {
    id: e.id,
    project_id: e.project_id,
    name: e.name,
    instructions: e.instructions ?? null,
    score_config_ids: e.score_config_ids,
    reviewers,
    reviewers_per_item: e.reviewers_per_item,
    lease_seconds: e.lease_seconds,
    status: e.status,
    items: Number(items.n),
    created_at: isoText(e.created_at),
    progress: {
      slots: Number(s.slots),
      done: Number(s.done),
      reserved: Number(s.reserved),
      open: Number(s.slots) - Number(s.done) - Number(s.reserved),
      by_reviewer: by.map((r) => ({ reviewer: r.reviewer, done: Number(r.done) })),
    },
  };
}

async function requireHumanEval(db: Knex, projectIds: string[], id: string) {
  const e = await q.findHumanEval(db, projectIds, id);
  if (!e) throw notFound('Human eval');
  return e;
}
export const getHumanEval = async (db: Knex, projectIds: string[], id: string) =>
  view(db, await requireHumanEval(db, projectIds, id));
export const listHumanEvals = async (db: Knex, projectIds: string[]) =>
  Promise.all((await q.listHumanEvalRows(db, projectIds)).map((e) => view(db, e)));

export async function createHumanEval(db: Knex, actor: Principal, scope: Scope, input: CreateHumanEvalInput) {
  const projectId = oneProject(scope);
  const configs = await db('score_configs')
    .where({ project_id: projectId, is_archived: false })
    .whereIn('id', input.score_config_ids);
  if (configs.length !== new Set(input.score_config_ids).size) throw notFound('Score config');
  const items = await resolveTargets(db, projectId, input.targets);
  const created = await db.transaction(async (trx) => {
    const [e]: q.HumanEvalRecord[] = await trx('human_evals')
      .insert({
        org_id: scope.orgId,
        project_id: projectId,
        name: input.name,
        instructions: input.instructions ?? null,
        score_config_ids: [...new Set(input.score_config_ids)],
        reviewers_per_item: input.reviewers_per_item,
        lease_seconds: input.lease_seconds,
        created_by: actor.kind === 'user' ? (actor.email ?? actor.sub) : null,
      })
      .returning('*');
    const reviewers = [
      ...new Set(input.reviewers.map((r) => ('user_id' in r ? `user:${r.user_id}` : `email:${r.email.toLowerCase()}`))),
    ];
    if (reviewers.length)
      await trx('human_eval_reviewers').insert(reviewers.map((reviewer) => ({ human_eval_id: e.id, reviewer })));
    await insertItems(trx, e.id, items, 0, input.reviewers_per_item);
    await recordAudit(trx, {
      orgId: scope.orgId,
      actor,
      action: 'human_eval.created',
      resourceType: 'human_eval',
      resourceId: e.id,
      after: { name: input.name, items: items.length, reviewers },
    });
    return e;
  });
  return view(db, created);
}

/**
 * More targets for a campaign (a request or trace spotted later, last week's traffic): items it
 * already has are left as they are (their answers stay), new ones queue after the existing ones.
 */
export async function addHumanEvalItems(
  db: Knex,
  actor: Principal,
  projectIds: string[],
  id: string,
  input: AddItemsInput,
) {
  const e = await requireHumanEval(db, projectIds, id);
  const items = await resolveTargets(db, e.project_id, input.targets);
  await db.transaction(async (trx) => {
    // Serializes concurrent additions to one campaign so positions stay unique and ordered.
    await trx('human_evals').where({ id }).forUpdate().first('id');
    const keys = items.map(([k]) => k);
    const ofCampaign = () => trx('human_eval_items').where({ human_eval_id: id });
    const known = new Set<string>(await ofCampaign().whereIn('target_key', keys).pluck('target_key'));
    const fresh = items.filter(([k]) => !known.has(k));
    const last = await ofCampaign().max('position as p').first<{ p: number | null }>();
    await insertItems(trx, id, fresh, (last.p ?? -1) + 1, e.reviewers_per_item);
    const after = { added: fresh.length, already_there: items.length - fresh.length };
    const action = 'human_eval.items_added';
    await recordAudit(trx, { orgId: e.org_id, actor, action, resourceType: 'human_eval', resourceId: id, after });
  });
  return view(db, await requireHumanEval(db, projectIds, id));
}

/** The targets as (key, target) pairs, duplicates dropped; 400 no_targets when a source matches nothing. */
async function resolveTargets(
  db: Knex,
  projectId: string,
  targets: CreateHumanEvalInput['targets'],
): Promise<[string, TargetRef][]> {
  let refs: TargetRef[];
  if ('items' in targets) refs = targets.items;
  else {
    const requests = targets.source.kind === 'requests';
    const ids = await targetIds(db, projectId, targets.source);
    refs = ids.map((id) => (requests ? { request_id: id } : { trace_id: id }));
  }
  if (!refs.length) throw badRequest('No targets match', 'no_targets');
  return [...new Map(refs.map((t) => [targetKey(t), t])).entries()];
}

/** Items from `position` on, each with its reviewer slots, in batches of 1,000 rows. */
async function insertItems(
  trx: Knex,
  campaignId: string,
  items: [string, TargetRef][],
  position: number,
  perItem: number,
) {
  const rows = items.map(([key, target], i) => ({
    human_eval_id: campaignId,
    target_key: key,
    target: JSON.stringify(target),
    position: position + i,
  }));
  for (let i = 0; i < rows.length; i += 1000) await trx('human_eval_items').insert(rows.slice(i, i + 1000));
  const slots = items.flatMap(([key]) =>
    Array.from({ length: perItem }, (_, slot) => ({ human_eval_id: campaignId, target_key: key, slot })),
  );
  for (let i = 0; i < slots.length; i += 1000) await trx('annotation_slots').insert(slots.slice(i, i + 1000));
}

export async function updateHumanEval(
  db: Knex,
  actor: Principal,
  projectIds: string[],
  id: string,
  input: {
    name?: string | undefined;
    instructions?: string | null | undefined;
    status?: 'open' | 'closed' | undefined;
  },
) {
  const before = await requireHumanEval(db, projectIds, id);
  const patch = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
  const [after]: q.HumanEvalRecord[] = await db('human_evals').where({ id }).update(patch).returning('*');
  await recordAudit(db, {
    orgId: before.org_id,
    actor,
    action: 'human_eval.updated',
    resourceType: 'human_eval',
    resourceId: id,
    before: { name: before.name, status: before.status },
    after: patch,
  });
  return view(db, after);
}

type Answer = q.Answer;
/** Agreement between reviewers per score config, and between them and any evaluator that scored the same targets. */
export async function agreement(db: Knex, projectIds: string[], id: string) {
  const e = await requireHumanEval(db, projectIds, id);
  const configs = await db('score_configs').whereIn('id', e.score_config_ids).orderBy('name');
  type Done = Pick<q.AnnotationSlotRecord, 'target_key' | 'answers'> & Pick<q.HumanEvalItemRecord, 'target'>;
  const done: Done[] = await db('annotation_slots as s')
    .join('human_eval_items as i', (j) =>
      j.on('i.human_eval_id', 's.human_eval_id').andOn('i.target_key', 's.target_key'),
    )
    .where({ 's.human_eval_id': id, 's.status': 'done' })
    .select('s.target_key', 's.answers', 'i.target');
  return {
    configs: await Promise.all(
      configs.map(async (c) => {
        const byItem = new Map<string, Answer[]>();
        for (const d of done) {
          const a: Answer | undefined = (d.answers ?? {})[c.id];
          if (a) byItem.set(d.target_key, [...(byItem.get(d.target_key) ?? []), a]);
        }
        const numeric = c.data_type === 'numeric';
        const label = (a: Answer) => (numeric ? String(a.value) : (a.string_value ?? String(a.value)));
        const units = [...byItem.values()].map((as) => as.map((a) => (numeric ? Number(a.value) : label(a))));
        const categories = [...new Set(units.flat().map(String))];
        const fleiss = numeric
          ? null
          : fleissKappa(units.map((u) => categories.map((cat) => u.filter((x) => String(x) === cat).length)));
        // The evaluator's scores of the same name on the same targets (request and trace targets).
        const human = new Map([...byItem].map(([k, as]) => [k, as]));
        type Judged = Answer & { request_id: string | null; trace_id: string | null };
        const keyOf = db.raw(
          "case when request_id is not null then 'request:' || request_id::text " + "else 'trace:' || trace_id end",
        );
        const judged: Judged[] = await db('scores')
          .where({ project_id: e.project_id, source: 'eval', name: c.name })
          .whereIn(keyOf as never, [...human.keys()])
          .select('request_id', 'trace_id', 'value', 'string_value');
        const humanOf = (s: Judged) => human.get(s.request_id ? `request:${s.request_id}` : `trace:${s.trace_id}`)!;
        const pairs = judged.map((s) => ({ judge: s, human: humanOf(s) }));
        const majority = (as: Answer[]) =>
          [...as.map(label).reduce((m, l) => m.set(l, (m.get(l) ?? 0) + 1), new Map<string, number>())].sort(
            (a, b) => b[1] - a[1],
          )[0]![0];
        const mean = (as: Answer[]) => as.reduce((s, a) => s + Number(a.value), 0) / as.length;
        const judge = pairs.length
          ? numeric
            ? {
                evaluator_scores: pairs.length,
                kappa: null,
                percent_agreement: null,
                correlation:
                  pairs.length >= 3
                    ? round(
                        stats().sampleCorrelation(
                          pairs.map((p) => Number(p.judge.value)),
                          pairs.map((p) => mean(p.human)),
                        ),
                      )
                    : null,
                mean_abs_diff: round(
                  pairs.reduce((s, p) => s + Math.abs(Number(p.judge.value) - mean(p.human)), 0) / pairs.length,
                ),
              }
            : {
                evaluator_scores: pairs.length,
                kappa: round(
                  cohensKappa(
                    pairs.map((p) => label(p.judge)),
                    pairs.map((p) => majority(p.human)),
                  ),
                ),
                percent_agreement: round(
                  pairs.filter((p) => label(p.judge) === majority(p.human)).length / pairs.length,
                ),
                correlation: null,
                mean_abs_diff: null,
              }
          : null;
        return {
          config_id: c.id,
          name: c.name,
          data_type: c.data_type,
          items_rated: byItem.size,
          ratings: units.flat().length,
          fleiss_kappa: round(fleiss),
          krippendorff_alpha: round(krippendorffAlpha(units, numeric ? 'interval' : 'nominal')),
          judge,
        };
      }),
    ),
  };
}
const round = (v: number | null) => (v === null || !Number.isFinite(v) ? null : Math.round(v * 1e6) / 1e6);
