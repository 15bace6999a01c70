import type { Knex } from 'knex';

/**
 * Provider proxy: prompts and their immutable versions, the request log, the response cache,
 * per-project end-user rate limits and their window counters.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table prompts (
      id uuid primary key default gen_random_uuid(),
      org_id uuid not null references organizations(id) on delete cascade,
      project_id uuid not null references projects(id) on delete cascade,
      name text not null check (name ~ '^[A-Za-z0-9][A-Za-z0-9._/-]{0,127}$'),
      description text,
      created_by uuid references users(id) on delete set null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (project_id, name)
    );
    create index prompts_org_idx on prompts (org_id);
    create trigger prompts_updated_at before update on prompts for each row execute function set_updated_at();

    create table prompt_versions (
      id uuid primary key default gen_random_uuid(),
      prompt_id uuid not null references prompts(id) on delete cascade,
      project_id uuid not null references projects(id) on delete cascade,
      version integer not null check (version > 0),
      content jsonb not null,
      model text,
      parameters jsonb,
      commit_message text,
      created_by uuid references users(id) on delete set null,
      created_at timestamptz not null default now(),
      unique (prompt_id, version)
    );
    create index prompt_versions_project_idx on prompt_versions (project_id);

    create table requests (
      id uuid primary key default gen_random_uuid(),
      org_id uuid not null references organizations(id) on delete cascade,
      project_id uuid not null references projects(id) on delete cascade,
      api_key_id uuid references api_keys(id) on delete set null,
      provider text not null,
      model text not null default '',
      method text not null default 'POST',
      path text not null,
      prompt_tokens integer not null default 0,
      completion_tokens integer not null default 0,
      total_tokens integer not null default 0,
      cache_read_tokens integer not null default 0,
      cache_write_tokens integer not null default 0,
      cost_usd numeric(20, 10),
      latency_ms integer not null,
      ttfb_ms integer,
      status_code integer not null,
      trace_id text,
      span_id text,
      user_id text,
      session_id text,
      request_body text not null default '',
      response_body text not null default '',
      log_mode text not null default 'full' check (log_mode in ('full', 'meta', 'none')),
      cache_hit boolean not null default false,
      streamed boolean not null default false,
      tokens_estimated boolean not null default false,
      self_hosted boolean not null default false,
      prompt_version_id uuid references prompt_versions(id) on delete set null,
      error text,
      created_at timestamptz not null default now()
    );
    create index requests_project_time_idx on requests (project_id, created_at desc, id desc);
    create index requests_project_session_idx on requests (project_id, session_id, created_at desc)
      where session_id is not null;
    create index requests_project_user_idx on requests (project_id, user_id, created_at desc) where user_id is not null;
    create index requests_trace_idx on requests (trace_id) where trace_id is not null;
    create index requests_org_time_idx on requests (org_id, created_at desc);
    create index requests_prompt_version_idx on requests (prompt_version_id) where prompt_version_id is not null;
    create index requests_api_key_idx on requests (api_key_id) where api_key_id is not null;

    -- Opt-in response cache, shared by every api replica. key = sha256(api key, method, provider, path, body).
    create table proxy_cache (
      key text primary key,
      project_id uuid not null references projects(id) on delete cascade,
      api_key_id uuid not null references api_keys(id) on delete cascade,
      provider text not null,
      path text not null,
      status_code integer not null,
      headers jsonb not null,
      body bytea not null,
      model text not null default '',
      usage jsonb,
      expires_at timestamptz not null,
      created_at timestamptz not null default now()
    );
    create index proxy_cache_expires_idx on proxy_cache (expires_at);
    create index proxy_cache_api_key_idx on proxy_cache (api_key_id);
    create index proxy_cache_project_idx on proxy_cache (project_id);

    create table rate_limits (
      project_id uuid primary key references projects(id) on delete cascade,
      org_id uuid not null references organizations(id) on delete cascade,
      requests_per_window integer check (requests_per_window > 0),
      tokens_per_window bigint check (tokens_per_window > 0),
      window_seconds integer not null check (window_seconds between 1 and 2592000),
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      check (requests_per_window is not null or tokens_per_window is not null)
    );
    create index rate_limits_org_idx on rate_limits (org_id);
    create trigger rate_limits_updated_at before update on rate_limits for each row execute function set_updated_at();

    -- One row per (project, end user, fixed window); incremented atomically by an upsert.
    create table rate_limit_counters (
      project_id uuid not null references projects(id) on delete cascade,
      user_id text not null,
      window_start timestamptz not null,
      expires_at timestamptz not null,
      requests integer not null default 0,
      tokens bigint not null default 0,
      primary key (project_id, user_id, window_start)
    );
    create index rate_limit_counters_expires_idx on rate_limit_counters (expires_at);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(
    'drop table if exists rate_limit_counters, rate_limits, proxy_cache, requests, prompt_versions, prompts cascade',
  );
}
