import type { Knex } from 'knex';

/**
 * Hourly rollups of spans for the spans view of /stats (issue 29): per (project, hour) in total,
 * per span type and per model. Spans change after they are written (a PATCH closes one and adds
 * its tokens, OTLP re-sends it, a trace's deletion removes them), so the rollups follow every
 * change through statement-level triggers: each INSERT, UPDATE or DELETE adds the signed sums of
 * the rows it touched (old rows subtracted, new rows added), aggregated per rollup key, to
 * `span_rollup_pending`, in its own transaction. The fold (src/analytics/span-rollups.ts) moves
 * pending deltas into `span_rollups`; readers see both (`span_rollups_live`), so answers are exact
 * the moment a span commits. Durations are binned like request latency (integer milliseconds,
 * src/analytics/histogram.ts).
 */
const COLS = `project_id uuid not null, dim text collate "C" not null, hour timestamptz not null,
  value text collate "C" not null, count bigint not null, errors bigint not null, prompt_tokens bigint not null,
  completion_tokens bigint not null, total_tokens bigint not null, cost_usd numeric not null,
  dur_sum double precision not null, dur_n bigint not null, dur_hist integer[]`;
const NAMES = `project_id, dim, hour, value, count, errors, prompt_tokens, completion_tokens, total_tokens, cost_usd,
  dur_sum, dur_n, dur_hist`;

/** The signed rollup deltas of the spans in `src` (a transition table), one row per key. */
function deltas(src: string, sign: 1 | -1): string {
  const s = sign === 1 ? '' : '-';
  const hist = `hist_of(array_agg(hist_bin(least(round(x.duration_ms), 3600000)::integer))
    filter (where x.duration_ms is not null))`;
  return `select x.project_id, d.dim, date_bin('1 hour', x.start_time, timestamptz '2000-01-01 00:00:00+00'), d.value,
      ${s}count(*), ${s}count(*) filter (where x.status = 'error'), ${s}coalesce(sum(x.prompt_tokens), 0),
      ${s}coalesce(sum(x.completion_tokens), 0), ${s}coalesce(sum(x.total_tokens), 0),
      ${s}coalesce(sum(x.cost_usd), 0), ${s}coalesce(sum(x.duration_ms), 0), ${s}count(x.duration_ms),
      ${sign === 1 ? hist : `hist_neg(${hist})`}
    from ${src} x
      cross join lateral (values (''::text, ''::text), ('span_type', x.span_type), ('model', x.model)) d(dim, value)
    where x.start_time is not null and d.value is not null
    group by 1, 2, 3, 4`;
}

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table span_rollups (${COLS}, primary key (project_id, dim, hour, value));
    create table span_rollup_pending (${COLS});

    create function hist_neg(h integer[]) returns integer[] language sql immutable parallel safe as $$
      select array_agg(-x order by i) from unnest(h) with ordinality u(x, i)
    $$;
    create aggregate hist_sum(integer[]) (sfunc = hist_add, stype = integer[]);

    create view span_rollups_live as
      select ${NAMES} from span_rollups union all select ${NAMES} from span_rollup_pending;

    create function span_rollup_insert() returns trigger language plpgsql as $$
    begin
      insert into span_rollup_pending (${NAMES}) ${deltas('new_spans', 1)};
      return null;
    end $$;
    create function span_rollup_update() returns trigger language plpgsql as $$
    begin
      insert into span_rollup_pending (${NAMES}) ${deltas('old_spans', -1)};
      insert into span_rollup_pending (${NAMES}) ${deltas('new_spans', 1)};
      return null;
    end $$;
    create function span_rollup_delete() returns trigger language plpgsql as $$
    begin
      insert into span_rollup_pending (${NAMES}) ${deltas('old_spans', -1)};
      return null;
    end $$;
    create trigger spans_rollup_insert after insert on spans
      referencing new table as new_spans for each statement execute function span_rollup_insert();
    create trigger spans_rollup_update after update on spans
      referencing old table as old_spans new table as new_spans
      for each statement execute function span_rollup_update();
    create trigger spans_rollup_delete after delete on spans
      referencing old table as old_spans for each statement execute function span_rollup_delete();

    insert into span_rollups (${NAMES}) ${deltas('spans', 1)};
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop trigger if exists spans_rollup_insert on spans;
    drop trigger if exists spans_rollup_update on spans;
    drop trigger if exists spans_rollup_delete on spans;
    drop function if exists span_rollup_insert(), span_rollup_update(), span_rollup_delete();
    drop view if exists span_rollups_live;
    drop table if exists span_rollups, span_rollup_pending;
    drop aggregate if exists hist_sum(integer[]);
    drop function if exists hist_neg(integer[]);
  `);
}
