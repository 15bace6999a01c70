import type { Knex } from 'knex';

/**
 * Trace ingest: traces and spans keyed by the client's own ids, scoped per project.
 *
 * The natural key (project_id, id) is the primary key: clients (the SDK, OpenTelemetry exporters)
 * choose ids, every write is an upsert on that key, and a surrogate uuid would cost one more index
 * on the hottest table for nothing.
 *
 * `created` is false for placeholder rows: a row written by an update (or, for traces, by a span)
 * that arrived before its create. The create fills the placeholder; fields an earlier update set win.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table traces (
      project_id uuid not null references projects(id) on delete cascade,
      id text not null check (char_length(id) between 1 and 128),
      org_id uuid not null references organizations(id) on delete cascade,
      name text,
      status text not null default 'running' check (status in ('running', 'completed', 'error')),
      session_id text,
      user_id text,
      metadata jsonb,
      input jsonb,
      output jsonb,
      -- placeholders carry a first-seen time until the create brings the real one
      start_time timestamptz not null,
      end_time timestamptz,
      duration_ms double precision generated always as (
        case when created and end_time is not null then date_part('epoch', end_time - start_time) * 1000 end) stored,
      source text not null default 'sdk' check (source in ('sdk', 'otlp')),
      created boolean not null default false,
      -- set once, by the conditional UPDATE that emits trace.completed
      completed_event_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (project_id, id)
    );
    create index traces_project_start_idx on traces (project_id, start_time desc, id desc);
    create index traces_project_session_idx on traces (project_id, session_id, start_time desc)
      where session_id is not null;
    create index traces_project_user_idx on traces (project_id, user_id, start_time desc) where user_id is not null;
    create index traces_project_name_idx on traces (project_id, name, start_time desc);
    create index traces_org_idx on traces (org_id);
    -- the sweeper's work list: ended traces whose completion event is still pending
    create index traces_pending_completion_idx on traces (end_time)
      where completed_event_at is null and end_time is not null;

    create table spans (
      project_id uuid not null,
      id text not null check (char_length(id) between 1 and 128),
      -- null only on a placeholder written by an update that did not name its trace
      trace_id text,
      parent_span_id text,
      name text,
      span_type text check (span_type in ('llm', 'retrieval', 'tool', 'agent', 'chain', 'embedding', 'other')),
      status text check (status in ('ok', 'error')),
      model text,
      prompt_tokens integer,
      completion_tokens integer,
      total_tokens integer,
      cost_usd numeric(20, 10),
      input jsonb,
      output jsonb,
      metadata jsonb,
      start_time timestamptz,
      end_time timestamptz,
      -- date_part (double precision), not extract (numeric): cheaper on every insert
      duration_ms double precision generated always as (date_part('epoch', end_time - start_time) * 1000) stored,
      created boolean not null default false,
      created_at timestamptz not null default now(),
      primary key (project_id, id)
    );
    create index spans_trace_idx on spans (project_id, trace_id);
    -- "is any span of this trace still open?" stays cheap however large the trace grows;
    -- spans that arrive closed (all OTLP spans) never enter this index
    create index spans_open_idx on spans (project_id, trace_id) where end_time is null;

    -- Spans reference their trace by (project_id, trace_id) without a foreign key: a per-row FK
    -- check costs ~20% of span insert throughput, and the ingest writer already guarantees the
    -- trace row exists (it upserts and locks it first). Deletes cascade through these
    -- statement-level triggers instead (traces deleted directly or with their project).
    create function spans_delete_with_traces() returns trigger language plpgsql as $$
    begin
      delete from spans s using gone g where s.project_id = g.project_id and s.trace_id = g.id;
      return null;
    end $$;
    create trigger traces_delete_spans after delete on traces
      referencing old table as gone for each statement execute function spans_delete_with_traces();

    create function spans_delete_with_projects() returns trigger language plpgsql as $$
    begin
      delete from spans s using gone g where s.project_id = g.id;
      return null;
    end $$;
    create trigger projects_delete_spans after delete on projects
      referencing old table as gone for each statement execute function spans_delete_with_projects();
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop trigger if exists projects_delete_spans on projects;
    drop function if exists spans_delete_with_projects();
    drop table if exists spans, traces cascade;
    drop function if exists spans_delete_with_traces();`);
}
