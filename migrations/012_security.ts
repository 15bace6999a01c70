import type { Knex } from 'knex';

/**
 * Security findings (issue 13, docs/security.md): what the scanner found in stored bodies and in span
 * and trace input/output. The scan queue is filled in the request-log and ingest transactions and drained by
 * the `security-scan` Temporal Schedule, so scanning never runs on the proxy's response path.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table security_scan_queue (
      source text not null check (source in ('request', 'span', 'trace')),
      project_id uuid not null,
      -- The request id, or the span or trace id (both keyed by project and id).
      ref text not null,
      -- The request's created_at (the partition key), or when the span or trace was written.
      at timestamptz not null,
      enqueued_at timestamptz not null default now(),
      primary key (source, project_id, ref)
    );
    create index security_scan_queue_order_idx on security_scan_queue (enqueued_at);

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
