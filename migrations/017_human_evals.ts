import type { Knex } from 'knex';

/**
 * Human evals and the annotation queue (issue 15, docs/human-evals.md): a campaign's targets, the
 * review slots each target has (reviewers_per_item), and reservations with a lease.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table human_evals (
      id uuid primary key default gen_random_uuid(),
      org_id uuid not null references organizations(id) on delete cascade,
      project_id uuid not null references projects(id) on delete cascade,
      name text not null check (length(name) between 1 and 200),
      instructions text,
      score_config_ids uuid[] not null,
      reviewers_per_item integer not null check (reviewers_per_item between 1 and 10),
      lease_seconds integer not null check (lease_seconds between 30 and 86400),
      status text not null default 'open' check (status in ('open', 'closed')),
      created_by text,
      created_at timestamptz not null default now()
    );
    create index human_evals_project_idx on human_evals (project_id, created_at desc);

    -- Reviewers: a member (user_id), or the e-mail of an invited member (matched when they review).
    create table human_eval_reviewers (
      human_eval_id uuid not null references human_evals(id) on delete cascade,
      reviewer text not null,
      primary key (human_eval_id, reviewer)
    );

    create table human_eval_items (
      human_eval_id uuid not null references human_evals(id) on delete cascade,
      -- request:<id> | trace:<id> | span:<trace>/<span> | session:<id> | experiment:<id>/<item>/<repetition>
      target_key text not null,
      target jsonb not null,
      position integer not null,
      primary key (human_eval_id, target_key)
    );

    create table annotation_slots (
      human_eval_id uuid not null,
      target_key text not null,
      slot integer not null,
      status text not null default 'open' check (status in ('open', 'reserved', 'done')),
      reviewer uuid,
      reserved_until timestamptz,
      done_at timestamptz,
      -- What the reviewer gave, per score config: {config_id: {value, string_value}} (agreement reads it).
      answers jsonb,
      primary key (human_eval_id, target_key, slot),
      foreign key (human_eval_id, target_key) references human_eval_items on delete cascade
    );
    -- A reviewer holds or fills at most one slot of an item.
    create unique index annotation_slots_reviewer_idx on annotation_slots (human_eval_id, target_key, reviewer)
      where reviewer is not null;
    create index annotation_slots_open_idx on annotation_slots (human_eval_id, status, target_key);

    create table annotation_skips (
      human_eval_id uuid not null,
      target_key text not null,
      reviewer uuid not null,
      primary key (human_eval_id, target_key, reviewer),
      foreign key (human_eval_id, target_key) references human_eval_items on delete cascade
    );
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(
    'drop table if exists annotation_skips, annotation_slots, human_eval_items, human_eval_reviewers, human_evals',
  );
}
