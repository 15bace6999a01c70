import type { z } from 'zod';
import { loadConfig } from '../../../src/config';
import type { AppContext } from '../../../src/context';
import type { RouteContract } from '../../../src/http/route';
import { inputCheckOf, type InputCheck } from '../../../src/http/schemas';
import { limitsFrom } from '../../../src/ingest/limits';
import { buildRoutes } from '../../../src/routes';
import type { Services } from '../../../src/services';

/**
 * Every id and time a client sends reaches SQL only through a schema that refuses what PostgreSQL
 * would refuse (issue: a `resource_id` that is not a UUID, or a year -200000, was a 500). This walks
 * the params, query and body of every route contract, nested objects, arrays and union options
 * included, and fails on a field that looks like a database id or a time but is not marked checked.
 */

/**
 * Ids that are client-chosen text, not uuids (the column is `text` in migrations/). A bare name
 * applies wherever the field appears; `<METHOD> <path> <field>` to one route only.
 */
const STRING_IDS: Record<string, string> = {
  trace_id: 'traces.id, spans.trace_id, scores.trace_id: the SDK or OTLP exporter chooses trace ids',
  span_id: 'spans.id, scores.span_id: client-chosen',
  source_span_id: 'dataset_items.source_span_id: a client-chosen span id',
  source_trace_id: 'dataset_items.source_trace_id: a client-chosen trace id',
  session_id: 'requests/traces.session_id: sent by clients (x-session-id, the SDK)',
  user_id: "end users' ids (requests/traces.user_id, text); members' user ids are uuids and use uuidSchema",
  experiment_item_id: 'scores.experiment_item_id: a dataset item id',
  item_id: 'experiment item ids are dataset item ids (dataset_items.item_id, text)',
  'POST /api/v1/datasets/:id/items body.items.id': 'dataset_items.item_id: client-chosen (letters, digits, . _ : -)',
  'DELETE /api/v1/datasets/:id/items/:itemId params.itemId': 'dataset_items.item_id',
  'GET /api/v1/traces/:id params.id': 'traces.id: client-chosen',
  'GET /api/v1/sessions/:id params.id': 'a client-chosen session id',
  'GET /api/v1/users/:id params.id': "an end user's id (text)",
  'GET /api/v1/audit-logs query.resource_id': 'audit_logs.resource_id is text (a uuid, a provider name, …)',
  'GET /api/v1/audit-logs query.actor_id': "audit_logs.actor_id is text (a user or key id, or 'system')",
  'POST /api/v1/shares body[resource_type=trace].resource_id':
    'a trace id (client-chosen); the request and stats_view options take a uuid',
  'POST /api/v1/shares body[resource_type=session].resource_id': 'a session id (client-chosen)',
};
/** Time-named fields that are not timestamps. None today. */
const NOT_TIMES: Record<string, string> = {};

const ID_NAME = /^(id|ids)$|_ids?$|[a-z]Ids?$/;
const TIME_NAME = /^(from|to|since|until|start|end|before|after)$|_(at|time|date|from|to|since|until)$/;

type Z = z.ZodType;
interface Def {
  type: string;
  format?: string;
  innerType?: Z;
  in?: Z;
  out?: Z;
  element?: Z;
  options?: Z[];
  discriminator?: string;
  left?: Z;
  right?: Z;
  valueType?: Z;
  getter?: () => Z;
  shape?: Record<string, Z>;
  values?: unknown[];
}
const def = (s: Z) => (s as unknown as { _zod: { def: Def } })._zod.def;
const WRAPPERS = new Set([
  'optional',
  'nullable',
  'default',
  'prefault',
  'catch',
  'readonly',
  'nonoptional',
  'success',
]);
/** A pipe is documented (and validated first) by its input side, unless that is a bare transform (preprocess). */
const pipeSide = (d: Def) => (def(d.in!).type === 'transform' ? d.out! : d.in!);

type Branch = InputCheck | 'unchecked-date' | 'other';
/** What each alternative of a field ends in: the first marked layer, else the kind of its leaf. */
function branches(s: Z, marked: Map<Z, InputCheck>): Branch[] {
  const mark = inputCheckOf(s);
  if (mark) {
    marked.set(s, mark);
    return [mark];
  }
  const d = def(s);
  if (WRAPPERS.has(d.type)) return branches(d.innerType!, marked);
  if (d.type === 'pipe') return branches(pipeSide(d), marked);
  if (d.type === 'array') return branches(d.element!, marked);
  if (d.type === 'lazy') return branches(d.getter!(), marked);
  if (d.type === 'union') return d.options!.flatMap((o) => branches(o, marked));
  if (d.type === 'null' || d.type === 'undefined') return [];
  if (d.type === 'date' || (d.type === 'string' && ['datetime', 'date', 'time'].includes(d.format ?? '')))
    return ['unchecked-date'];
  return ['other'];
}

interface Field {
  key: string;
  name: string;
  schema: Z;
}
/** Every object property under `s`, by dotted path; union options are named by their discriminator. */
function fields(s: Z | undefined, path: string, out: Field[], seen = new Set<Z>()): Field[] {
  if (!s || seen.has(s)) return out;
  seen.add(s);
  const d = def(s);
  if (WRAPPERS.has(d.type)) fields(d.innerType, path, out, seen);
  else if (d.type === 'pipe') fields(pipeSide(d), path, out, seen);
  else if (d.type === 'array') fields(d.element, path, out, seen);
  else if (d.type === 'lazy') fields(d.getter!(), path, out, seen);
  else if (d.type === 'record') fields(d.valueType, `${path}.*`, out, seen);
  else if (d.type === 'intersection') [d.left, d.right].forEach((x) => fields(x, path, out, seen));
  else if (d.type === 'union') {
    for (const o of d.options!) {
      const tag = d.discriminator
        ? `[${d.discriminator}=${String(def(def(o).shape![d.discriminator]!).values?.[0])}]`
        : '';
      fields(o, path + tag, out, seen);
    }
  } else if (d.type === 'object') {
    for (const [k, v] of Object.entries(d.shape!)) {
      out.push({ key: `${path}.${k}`, name: k, schema: v });
      fields(v, `${path}.${k}`, out, seen);
    }
  }
  seen.delete(s);
  return out;
}

/** The real route list, built on a context whose services are never called while building it. */
function allRoutes(): RouteContract[] {
  const config = loadConfig({});
  const inert = (): unknown => new Proxy(() => inert(), { get: (_t, k) => (k === 'then' ? undefined : inert()) });
  const over = <T>(known: Record<string, unknown>) =>
    new Proxy(known, { get: (t, k: string) => (k in t ? t[k] : inert()) }) as T;
  return buildRoutes(over<AppContext>({ config }), over<Services>({ ingest: over({ limits: limitsFrom(config) }) }));
}

describe('route contracts type every id and time they take', () => {
  const routes = allRoutes();
  const marked = new Map<Z, InputCheck>();
  const rows = routes.flatMap((r) =>
    (['params', 'query', 'body'] as const).flatMap((part) =>
      fields(r[part], part, []).map((f) => ({
        ...f,
        route: `${r.method.toUpperCase()} ${r.path}`,
        branches: branches(f.schema, marked),
      })),
    ),
  );
  const allowed = (list: Record<string, string>, route: string, f: Field) =>
    f.name in list || `${route} ${f.key}` in list;

  it('walks the whole route list', () => {
    expect(routes.length).toBeGreaterThan(150);
    const keys = new Set(rows.map((r) => `${r.route} ${r.key}`));
    for (const k of [
      'POST /api/v1/shares body[resource_type=request].resource_id',
      'GET /api/v1/audit-logs query.from',
      'POST /api/v1/eval-runs body.target[kind=requests].filter.api_key_id',
    ])
      expect(keys).toContain(k);
  });

  it('types id-named fields as uuids, unless a commented string id', () => {
    const bad = rows.filter(
      (r) =>
        ID_NAME.test(r.name) &&
        !allowed(STRING_IDS, r.route, r) &&
        !r.branches.every((b) => b === 'uuid' || b === 'uuid-list'),
    );
    expect(bad.map((r) => `${r.route} ${r.key}: ${r.branches.join('|')}`)).toEqual([]);
  });

  it('types time-named fields, and every date anywhere, as range-checked timestamps', () => {
    const bad = rows.filter(
      (r) =>
        (TIME_NAME.test(r.name) && !allowed(NOT_TIMES, r.route, r) && !r.branches.every((b) => b === 'date-time')) ||
        r.branches.includes('unchecked-date'),
    );
    expect(bad.map((r) => `${r.route} ${r.key}: ${r.branches.join('|')}`)).toEqual([]);
  });

  it('keeps no stale allow-list entry', () => {
    const used = (list: Record<string, string>) =>
      Object.keys(list).filter((k) =>
        rows.some(
          (r) =>
            (r.name === k || `${r.route} ${r.key}` === k) &&
            !r.branches.every((b) => b === 'uuid' || b === 'date-time'),
        ),
      );
    expect(used(STRING_IDS).sort()).toEqual(Object.keys(STRING_IDS).sort());
    expect(used(NOT_TIMES)).toEqual(Object.keys(NOT_TIMES));
  });

  it('marks only schemas that refuse what PostgreSQL would refuse', () => {
    const uuid = '3f2b6c1e-8a4d-4c1b-9f0e-2d7a5b8c9e10';
    const cases: Record<InputCheck, [unknown[], unknown[]]> = {
      uuid: [
        [uuid, uuid.toUpperCase()],
        ['not-a-uuid', '', `${uuid}x`, 42],
      ],
      'uuid-list': [[`${uuid},${uuid}`], ['a,b', `${uuid},nope`, '']],
      'date-time': [
        ['2026-01-31T12:00:00Z', '0001-01-01T00:00:00+00:00', '9999-12-31T23:59:59Z'],
        ['-200000-01-01T00:00:00Z', '0000-01-01T00:00:00Z', '2026-02-30T00:00:00Z', 'yesterday', '2026-01-31'],
      ],
    };
    expect(marked.size).toBeGreaterThan(3);
    for (const [schema, kind] of marked) {
      const [good, bad] = cases[kind];
      for (const v of good) expect({ kind, v, ok: schema.safeParse(v).success }).toEqual({ kind, v, ok: true });
      for (const v of bad) expect({ kind, v, ok: schema.safeParse(v).success }).toEqual({ kind, v, ok: false });
    }
  });
});
