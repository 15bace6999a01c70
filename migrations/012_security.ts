import type { Knex } from 'knex';

/**
 * Security findings (issue 13, docs/security.md): what the scanner found in stored bodies and in span
 * and trace input/output. The scan queue is filled in the request-log and ingest transactions and drained by
 * the `security-scan` Temporal Schedule, so scanning never runs on the proxy's response path.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    -- One row per writer batch (like rollup_pending): a batch of 500 calls costs one insert.
    create table security_scan_queue (
      id bigserial primary key,
      source text not null check (source in ('request', 'span', 'trace')),
      -- Requests: their ids and the created_at range (partition pruning). Spans and traces: project
      -- and id pairs (both keyed by project and id).
      project_ids uuid[],
      ids text[] not null,
      lo timestamptz,
      hi timestamptz,
      enqueued_at timestamptz not null default now()
    );

    create table security_findings (
      id uuid primary key default gen_random_uuid(),
      org_id uuid not null references organizations(id) on delete cascade,
      project_id uuid not null references projects(id) on delete cascade,
      kind text not null check (kind in ('secret', 'pii', 'prompt_injection')),
      category text not null,
      severity text not null check (severity in ('low', 'medium', 'high', 'critical')),
      detector text not null,
      -- HMAC of the matched value under a key derived from MASTER_KEY: the same secret seen again is
      -- the same finding, and the table never holds the value (nor a plain hash of a phone number).
      fingerprint text not null,
      excerpt text not null,
      source text not null check (source in ('request', 'span', 'trace')),
      request_id uuid,
      trace_id text,
      span_id text,
      field text not null,
      direction text not null check (direction in ('in', 'out')),
      last_request_id uuid,
      last_trace_id text,
      last_span_id text,
      first_seen timestamptz not null,
      last_seen timestamptz not null,
      occurrences integer not null default 1,
      status text not null default 'open' check (status in ('open', 'resolved', 'dismissed')),
      status_changed_at timestamptz,
      status_changed_by text,
      created_at timestamptz not null default now(),
      unique (project_id, kind, category, fingerprint)
    );
    create index security_findings_list_idx on security_findings (project_id, last_seen desc, id desc);
    create index security_findings_new_idx on security_findings (project_id, created_at);
    -- The scanner matches a batch's values by fingerprint (under every key of the ring).
    create index security_findings_fingerprint_idx on security_findings (fingerprint);

    -- Where each finding was seen: occurrences count distinct places, so a span scanned again after
    -- an update does not count its secret twice.
    create table security_finding_sightings (
      finding_id uuid not null references security_findings(id) on delete cascade,
      location text not null,
      primary key (finding_id, location)
    );
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table if exists security_finding_sightings, security_findings, security_scan_queue');
}
