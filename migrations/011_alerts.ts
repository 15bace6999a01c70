import type { Knex } from 'knex';

/**
 * Alert rules (docs/alerts.md): the rules, their state per (rule, group) and the history of what
 * they saw. `type` is checked by the API against the measure-source registry (src/alerts/sources),
 * not by a constraint, so a new measure is one source file and no migration.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table alert_rules (
      id uuid primary key default gen_random_uuid(),
      org_id uuid not null references organizations(id) on delete cascade,
      project_id uuid references projects(id) on delete cascade,
      name text not null check (length(name) between 1 and 200),
      type text not null,
      operator text not null check (operator in ('gt', 'gte', 'lt', 'lte')),
      threshold double precision not null,
      warning_threshold double precision,
      window_minutes integer not null check (window_minutes between 1 and 1440),
      -- The analytics filter language (src/analytics/filters.ts) as the API takes it.
      filter jsonb not null default '{}',
      group_by text,
      min_requests integer not null default 0 check (min_requests >= 0),
      no_data text not null default 'ok' check (no_data in ('ok', 'alert', 'keep')),
      cooldown_minutes integer not null default 60 check (cooldown_minutes between 0 and 10080),
      is_active boolean not null default true,
      created_by uuid references users(id) on delete set null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      -- Bumped on every change; the Temporal Schedule matches the rule when schedule_version = version.
      version integer not null default 1,
      schedule_version integer,
      schedule_error text
    );
    create index alert_rules_org_idx on alert_rules (org_id, created_at, id);
    -- The reconcile's "what is out of sync" scan.
    create index alert_rules_unsynced_idx on alert_rules (id) where schedule_version is distinct from version;

    create table alert_states (
      rule_id uuid not null references alert_rules(id) on delete cascade,
      group_key text not null,
      state text not null check (state in ('ok', 'warning', 'triggered', 'resolved')),
      since timestamptz not null,
      no_data boolean not null default false,
      last_value double precision,
      last_evaluated_at timestamptz not null,
      last_notified_at timestamptz,
      primary key (rule_id, group_key)
    );

    create table alert_events (
      id uuid primary key default gen_random_uuid(),
      rule_id uuid not null references alert_rules(id) on delete cascade,
      org_id uuid not null references organizations(id) on delete cascade,
      kind text not null check (kind in ('triggered', 'warning', 'resolved', 'no_data')),
      group_key text not null,
      value double precision,
      threshold double precision,
      requests bigint,
      -- A notification (alert.triggered) was written to the event outbox with this event.
      notified boolean not null default false,
      at timestamptz not null default now()
    );
    create index alert_events_rule_idx on alert_events (rule_id, at desc, id desc);

    create trigger alert_rules_updated_at before update on alert_rules for each row execute function set_updated_at();
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table if exists alert_events, alert_states, alert_rules');
}
