import type { Knex } from 'knex';

/**
 * Tenancy: users (provisioned from JWT `sub`), organizations (workspaces) with plans, memberships
 * with roles, invitations (hashed tokens), projects, API keys (hashed), provider keys (AES-256-GCM
 * ciphertext), plan changes and the audit log.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table users (
      id uuid primary key default gen_random_uuid(),
      sub text not null unique,
      email text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    create index users_email_idx on users (lower(email));

    create table organizations (
      id uuid primary key default gen_random_uuid(),
      name text not null check (length(name) between 1 and 200),
      plan text not null default 'free' check (plan in ('free', 'pro', 'team', 'enterprise')),
      owner_user_id uuid not null references users(id) on delete restrict,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    create index organizations_owner_idx on organizations (owner_user_id);

    create table memberships (
      org_id uuid not null references organizations(id) on delete cascade,
      user_id uuid not null references users(id) on delete cascade,
      role text not null check (role in ('admin', 'editor', 'viewer')),
      created_at timestamptz not null default now(),
      primary key (org_id, user_id)
    );
    create index memberships_user_idx on memberships (user_id);

    create table invitations (
      id uuid primary key default gen_random_uuid(),
      org_id uuid not null references organizations(id) on delete cascade,
      email text not null,
      role text not null check (role in ('admin', 'editor', 'viewer')),
      token_hash text not null unique,
      invited_by uuid references users(id) on delete set null,
      expires_at timestamptz not null,
      accepted_at timestamptz,
      accepted_by uuid references users(id) on delete set null,
      revoked_at timestamptz,
      created_at timestamptz not null default now()
    );
    create index invitations_org_idx on invitations (org_id, created_at desc);
    create index invitations_email_idx on invitations (lower(email)) where accepted_at is null and revoked_at is null;

    create table projects (
      id uuid primary key default gen_random_uuid(),
      org_id uuid not null references organizations(id) on delete cascade,
      name text not null check (length(name) between 1 and 200),
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    create index projects_org_idx on projects (org_id, created_at);

    create table api_keys (
      id uuid primary key default gen_random_uuid(),
      org_id uuid not null references organizations(id) on delete cascade,
      project_id uuid not null references projects(id) on delete cascade,
      name text not null,
      scope text not null check (scope in ('full', 'public')),
      key_hash text not null unique,
      prefix text not null,
      last4 text not null,
      is_active boolean not null default true,
      created_by uuid references users(id) on delete set null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      last_used_at timestamptz
    );
    create index api_keys_project_idx on api_keys (project_id, created_at);
    create index api_keys_org_idx on api_keys (org_id);

    create table provider_keys (
      id uuid primary key default gen_random_uuid(),
      org_id uuid not null references organizations(id) on delete cascade,
      project_id uuid not null references projects(id) on delete cascade,
      provider text not null,
      api_key_ciphertext text,
      master_key_id text,
      key_hint text,
      base_url text,
      created_by uuid references users(id) on delete set null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (project_id, provider),
      check ((api_key_ciphertext is null) = (master_key_id is null))
    );
    create index provider_keys_org_idx on provider_keys (org_id);

    create table plan_changes (
      id uuid primary key default gen_random_uuid(),
      org_id uuid not null references organizations(id) on delete cascade,
      from_plan text not null,
      to_plan text not null,
      changed_by uuid references users(id) on delete set null,
      created_at timestamptz not null default now()
    );
    create index plan_changes_org_idx on plan_changes (org_id, created_at desc);

    create table audit_logs (
      id uuid primary key default gen_random_uuid(),
      org_id uuid not null references organizations(id) on delete cascade,
      actor_type text not null check (actor_type in ('user', 'api_key', 'system')),
      actor_id text,
      actor_label text,
      action text not null,
      resource_type text not null,
      resource_id text,
      before jsonb,
      after jsonb,
      created_at timestamptz not null default now()
    );
    create index audit_logs_org_time_idx on audit_logs (org_id, created_at desc, id desc);
    create index audit_logs_org_action_idx on audit_logs (org_id, action, created_at desc);
    create index audit_logs_org_resource_idx on audit_logs (org_id, resource_type, created_at desc);
    create index audit_logs_org_actor_idx on audit_logs (org_id, actor_id, created_at desc);

    create trigger users_updated_at before update on users for each row execute function set_updated_at();
    create trigger organizations_updated_at before update on organizations
      for each row execute function set_updated_at();
    create trigger projects_updated_at before update on projects for each row execute function set_updated_at();
    create trigger api_keys_updated_at before update of name, is_active on api_keys
      for each row execute function set_updated_at();
    create trigger provider_keys_updated_at before update on provider_keys
      for each row execute function set_updated_at();
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop table if exists audit_logs, plan_changes, provider_keys, api_keys, projects, invitations, memberships,
      organizations, users cascade;
  `);
}
