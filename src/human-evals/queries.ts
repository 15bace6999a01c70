import type { Knex } from 'knex';

/** SQL of human evals and the annotation queue. The records are the rows as pg returns them. */
export interface HumanEvalRecord {
  id: string;
  org_id: string;
  project_id: string;
  name: string;
  instructions: string | null;
  score_config_ids: string[];
  reviewers_per_item: number;
  lease_seconds: number;
  status: 'open' | 'closed';
  created_by: string | null;
  created_at: Date;
}

/** A stored target (one of TargetRef's shapes), each key read as optional. */
interface StoredTarget {
  request_id?: string;
  trace_id?: string;
  span_id?: string;
  session_id?: string;
  experiment_id?: string;
  experiment_item_id?: string;
  repetition?: number;
}

export interface HumanEvalItemRecord {
  human_eval_id: string;
  target_key: string;
  target: StoredTarget;
  position: number;
}

/** What a reviewer gave for one score config. */
export interface Answer {
  value: number | null;
  string_value: string | null;
}

export interface AnnotationSlotRecord {
  human_eval_id: string;
  target_key: string;
  slot: number;
  status: 'open' | 'reserved' | 'done';
  reviewer: string | null;
  reserved_until: Date | null;
  done_at: Date | null;
  answers: Record<string, Answer> | null;
}

export const findHumanEval = (db: Knex, projectIds: string[], id: string) =>
  db<HumanEvalRecord>('human_evals').whereIn('project_id', projectIds).andWhere({ id }).first();

export const listHumanEvalRows = (db: Knex, projectIds: string[]) =>
  db<HumanEvalRecord>('human_evals')
    .whereIn('project_id', projectIds)
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(200);

/** A campaign's progress: counts are bigint, so numbers (src/db/knex.ts). */
export interface ProgressRows {
  reviewers: string[];
  items: { n: number };
  slots: { done: number; reserved: number; slots: number };
  by: { reviewer: string; done: number }[];
}

export async function progressRows(db: Knex, id: string): Promise<ProgressRows> {
  const counts =
    "count(*) filter (where status = 'done') as done, " +
    "count(*) filter (where status = 'reserved' and reserved_until > now()) as reserved, count(*) as slots";
  const [reviewers, items, slots, by] = await Promise.all([
    db('human_eval_reviewers').where({ human_eval_id: id }).pluck('reviewer'),
    db('human_eval_items').where({ human_eval_id: id }).count('* as n').first<{ n: number }>(),
    db('annotation_slots').where({ human_eval_id: id }).select(db.raw(counts)).first<ProgressRows['slots']>(),
    db('annotation_slots as s')
      .leftJoin('users as u', 'u.id', 's.reviewer')
      .where({ 's.human_eval_id': id, 's.status': 'done' })
      .select(db.raw('coalesce(u.email, s.reviewer::text) as reviewer'))
      .count<ProgressRows['by']>('* as done')
      .groupByRaw('1')
      .orderByRaw('1'),
  ]);
  return { reviewers, items, slots, by };
}
