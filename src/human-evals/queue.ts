import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { Principal } from '../auth/principal';
import { loadTarget } from '../evaluators/targets';
import { badRequest, conflict, forbidden, notFound } from '../http/errors';
import { writeScore } from '../scores/service';
import { isoText } from '../db/convert';
import type { AnnotationSlotRecord, HumanEvalItemRecord, HumanEvalRecord } from './queries';
import type { Scope } from '../http/route';

/**
 * The annotation queue (docs/human-evals.md): a reviewer takes the next open slot of the campaigns
 * they review, with a reservation that lapses after the campaign's lease (a lapsed slot goes back
 * to the pool); answering writes the scores (source `annotation`) and hands out the next one.
 */
type User = Extract<Principal, { kind: 'user' }>;
const asUser = (p: Principal): User => {
  if (p.kind !== 'user') throw forbidden('The annotation queue is for people (JWT)', 'jwt_required');
  return p;
};

/** Open campaigns of these projects the user reviews (assigned by id or e-mail, or open to every member). */
async function campaigns(db: Knex, projectIds: string[], u: User, only?: string): Promise<HumanEvalRecord[]> {
  const q = db('human_evals as e')
    .whereIn('e.project_id', projectIds)
    .andWhere('e.status', 'open')
    .andWhere((w) =>
      w.whereNotExists(db('human_eval_reviewers as r').whereRaw('r.human_eval_id = e.id')).orWhereExists(
        db('human_eval_reviewers as r')
          .whereRaw('r.human_eval_id = e.id')
          .andWhere((x) =>
            x.where('r.reviewer', `user:${u.userId}`).orWhere('r.reviewer', `email:${(u.email ?? '').toLowerCase()}`),
          ),
      ),
    );
  if (only) q.andWhere('e.id', only);
  return q.select('e.*');
}

async function present(db: Knex, e: HumanEvalRecord, slot: AnnotationSlotRecord) {
  const [item, configs] = await Promise.all([
    db<HumanEvalItemRecord>('human_eval_items').where({ human_eval_id: e.id, target_key: slot.target_key }).first(),
    db('score_configs')
      .whereIn('id', e.score_config_ids)
      .orderBy('name')
      .select('id', 'name', 'data_type', 'min', 'max', 'categories', 'description'),
  ]);
  const t = item!.target;
  let content: { input: unknown; output: unknown } = { input: null, output: null };
  if (t.request_id || (t.trace_id && !t.span_id)) {
    const x = await loadTarget(db, t.request_id ? 'request' : 'trace', e.project_id, t.request_id ?? t.trace_id!);
    content = x ? { input: x.input, output: x.output } : content;
  } else if (t.span_id) {
    const s = await db('spans').where({ project_id: e.project_id, id: t.span_id }).first('input', 'output');
    content = { input: s?.input ?? null, output: s?.output ?? null };
  } else if (t.experiment_id) {
    const r = await db('experiment_items')
      .where({ experiment_id: t.experiment_id, item_id: t.experiment_item_id, repetition: t.repetition ?? 0 })
      .first('output');
    content = { input: t.experiment_item_id, output: r?.output ?? null };
  }
  return {
    human_eval: { id: e.id, name: e.name, instructions: e.instructions ?? null },
    target_key: slot.target_key,
    target: t,
    content,
    score_configs: configs,
    reserved_until: isoText(slot.reserved_until),
  };
}

/** The user's live reservation, or a new one on the next open (or lapsed) slot; null when nothing is left. */
export async function nextItem(db: Knex, p: Principal, scope: Scope, only?: string) {
  const u = asUser(p);
  const evals = only ? [await reviewed(db, u, scope, only)] : await campaigns(db, scope.projectIds, u);
  if (!evals.length) return null;
  const ids = evals.map((e) => e.id);
  const byId = new Map(evals.map((e) => [e.id, e]));
  const held = await db<AnnotationSlotRecord>('annotation_slots')
    .whereIn('human_eval_id', ids)
    .andWhere({ reviewer: u.userId, status: 'reserved' })
    .andWhere('reserved_until', '>', db.fn.now())
    .orderBy('reserved_until')
    .first();
  if (held) return present(db, byId.get(held.human_eval_id)!, held);
  const taken = await db.transaction(async (trx) => {
    // My lapsed reservations go back first (one slot per item and reviewer).
    await trx('annotation_slots')
      .whereIn('human_eval_id', ids)
      .andWhere({ reviewer: u.userId, status: 'reserved' })
      .update({ status: 'open', reviewer: null, reserved_until: null });
    const { rows } = await trx.raw<{ rows: AnnotationSlotRecord[] }>(
      `update annotation_slots s
          set status = 'reserved', reviewer = ?, reserved_until = now() + make_interval(secs => e.lease_seconds)
         from human_evals e,
              (select s2.human_eval_id, s2.target_key, s2.slot
                 from annotation_slots s2 join human_eval_items i using (human_eval_id, target_key)
                where s2.human_eval_id = any(?::uuid[])
                  and (s2.status = 'open' or (s2.status = 'reserved' and s2.reserved_until <= now()))
                  and not exists (select 1 from annotation_slots o
                                   where o.human_eval_id = s2.human_eval_id and o.target_key = s2.target_key
                                     and o.reviewer = ? and o.slot <> s2.slot)
                  and not exists (select 1 from annotation_skips k
                                   where k.human_eval_id = s2.human_eval_id and k.target_key = s2.target_key
                                     and k.reviewer = ?)
                order by s2.human_eval_id, i.position, s2.slot limit 1 for update of s2 skip locked) pick
        where e.id = s.human_eval_id
          and (s.human_eval_id, s.target_key, s.slot) = (pick.human_eval_id, pick.target_key, pick.slot)
        returning s.*`,
      [u.userId, ids, u.userId, u.userId],
    );
    return rows[0];
  });
  return taken ? present(db, byId.get(taken.human_eval_id)!, taken) : null;
}

/** The campaign, if the user reviews it: otherwise 404 (unknown), 409 (closed) or 403 (not a reviewer). */
async function reviewed(db: Knex, u: User, scope: Scope, humanEvalId: string) {
  const e = (await campaigns(db, scope.projectIds, u, humanEvalId))[0];
  if (e) return e;
  const other = await db<HumanEvalRecord>('human_evals')
    .whereIn('project_id', scope.projectIds)
    .andWhere({ id: humanEvalId })
    .first('status');
  if (!other) throw notFound('Human eval');
  throw other.status === 'closed'
    ? conflict('This campaign is closed', 'human_eval_closed')
    : forbidden('You are not a reviewer of this campaign', 'not_a_reviewer');
}

async function mySlot(db: Knex, u: User, scope: Scope, humanEvalId: string, targetKey: string) {
  const e = await reviewed(db, u, scope, humanEvalId);
  const slot = await db<AnnotationSlotRecord>('annotation_slots')
    .where({ human_eval_id: humanEvalId, target_key: targetKey, reviewer: u.userId })
    .first();
  if (!slot || slot.status === 'done')
    throw conflict(
      'You hold no reservation on this item (it lapsed and was taken, or you answered it)',
      'reservation_lost',
    );
  return { e, slot };
}

/** Writes the reviewer's scores (every config of the campaign), marks the slot done, and hands out the next item. */
export async function submit(
  db: Knex,
  p: Principal,
  scope: Scope,
  body: {
    human_eval_id: string;
    target_key: string;
    scores: {
      config_id: string;
      value?: number | undefined;
      string_value?: string | undefined;
      comment?: string | null | undefined;
    }[];
  },
) {
  const u = asUser(p);
  const { e, slot } = await mySlot(db, u, scope, body.human_eval_id, body.target_key);
  const missing = e.score_config_ids.filter((c: string) => !body.scores.some((s) => s.config_id === c));
  if (missing.length)
    throw badRequest(`answer every score config of the campaign (missing ${missing.join(', ')})`, 'scores_incomplete');
  const item = await db('human_eval_items').where({ human_eval_id: e.id, target_key: body.target_key }).first();
  const answers: Record<string, { value: number | null; string_value: string | null }> = {};
  await db.transaction(async (trx) => {
    for (const s of body.scores) {
      const id = createHash('sha256').update(`${e.id}\0${body.target_key}\0${u.userId}\0${s.config_id}`).digest('hex');
      const uuid = `${id.slice(0, 8)}-${id.slice(8, 12)}-5${id.slice(13, 16)}-a${id.slice(17, 20)}-${id.slice(20, 32)}`;
      const out = await writeScore(
        trx as unknown as Knex,
        p,
        { orgId: scope.orgId, projectIds: [e.project_id] },
        {
          ...item.target,
          id: uuid,
          config_id: s.config_id,
          value: s.value,
          string_value: s.string_value,
          comment: s.comment,
        },
        'annotation',
      );
      answers[s.config_id] = { value: out.row.value, string_value: out.row.string_value };
    }
    await trx('annotation_slots')
      .where({ human_eval_id: e.id, target_key: body.target_key, slot: slot.slot })
      .update({ status: 'done', done_at: trx.fn.now(), reserved_until: null, answers: JSON.stringify(answers) });
  });
  return nextItem(db, p, scope, body.human_eval_id);
}

/** Gives the item back; with `skip` the reviewer will not be offered it again. */
export async function release(
  db: Knex,
  p: Principal,
  scope: Scope,
  body: { human_eval_id: string; target_key: string },
  skip: boolean,
) {
  const u = asUser(p);
  const { e, slot } = await mySlot(db, u, scope, body.human_eval_id, body.target_key);
  await db.transaction(async (trx) => {
    await trx('annotation_slots')
      .where({ human_eval_id: e.id, target_key: body.target_key, slot: slot.slot })
      .update({ status: 'open', reviewer: null, reserved_until: null });
    if (skip)
      await trx('annotation_skips')
        .insert({ human_eval_id: e.id, target_key: body.target_key, reviewer: u.userId })
        .onConflict()
        .ignore();
  });
  return nextItem(db, p, scope, body.human_eval_id);
}
