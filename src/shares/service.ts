import { createHash, randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { AnalyticsStore } from '../analytics/store';
import { recordAudit } from '../audit/audit';
import type { Principal } from '../auth/principal';
import { compare } from '../experiments/compare';
import { badRequest, notFound } from '../http/errors';
import { requireRequest } from '../requests/service';
import { filterOfProject, filterParams, findVisible, publicFilter } from '../saved-filters/service';
import { requireSession } from '../sessions/service';
import { statsQuery } from '../stats/schemas';
import { stats } from '../stats/service';
import { requireTrace } from '../traces/service';
import { projectOfResource } from './project';
import type { CreateShareInput } from './schemas';
import { isoOrNull, isoText } from '../db/convert';
import * as q from './queries';
import type { Scope } from '../http/route';

/**
 * Shares: a read-only link to one resource. The token (shown once) is stored as a SHA-256 hash;
 * an expired or revoked share, or an unknown token, is the same 404.
 */
const hash = (token: string) => createHash('sha256').update(token).digest('hex');
const REDACTED = '[redacted]';

const toView = (r: q.ShareRecord) => ({
  id: r.id,
  project_id: r.project_id,
  resource_type: r.resource_type,
  resource_id: r.resource_id,
  token_hint: r.token_hint,
  expires_at: isoOrNull(r.expires_at),
  redact_bodies: r.redact_bodies,
  view_count: r.view_count,
  last_viewed_at: isoOrNull(r.last_viewed_at),
  revoked_at: isoOrNull(r.revoked_at),
  created_by: r.created_by ?? null,
  created_at: isoText(r.created_at),
});

/** The shared resource as its own read route answers it (with bodies redacted when asked). */
type Shared = Pick<q.ShareRecord, 'project_id' | 'resource_type' | 'resource_id' | 'redact_bodies'>;
async function render(db: Knex, store: AnalyticsStore, s: Shared): Promise<unknown> {
  const ids = [s.project_id];
  const redact = s.redact_bodies;
  switch (s.resource_type) {
    case 'trace': {
      const t = await requireTrace(db, ids, s.resource_id);
      return redact
        ? {
            ...t,
            input: REDACTED,
            output: REDACTED,
            spans: t.spans.map((x) => ({ ...x, input: REDACTED, output: REDACTED })),
            tree: [],
          }
        : t;
    }
    case 'request': {
      const r = await requireRequest(db, ids, s.resource_id);
      return redact ? { ...r, request_body: REDACTED, response_body: REDACTED } : r;
    }
    case 'session': {
      const x = await requireSession(db, ids, s.resource_id);
      return redact
        ? JSON.parse(
            JSON.stringify(x, (k, v) =>
              ['input', 'output', 'request_body', 'response_body'].includes(k) ? REDACTED : v,
            ),
          )
        : x;
    }
    case 'experiment_comparison': {
      const c = await compare(db, ids, s.resource_id.split(','), 0);
      const redacted = (runs: (typeof c.items)[number]['runs']) =>
        Object.fromEntries(Object.entries(runs).map(([k, r]) => [k, { ...r, outputs: r.outputs.map(() => REDACTED) }]));
      return redact ? { ...c, items: c.items.map((i) => ({ ...i, runs: redacted(i.runs) })) } : c;
    }
    default:
      return (await statsView(db, store, s)).resource;
  }
}

/** A saved stats view as it is now (the share was checked against its owner's access when made), and its filter. */
async function statsView(db: Knex, store: AnalyticsStore, s: Shared) {
  const row = await filterOfProject(db, s.project_id, s.resource_id, 'stats');
  const query = statsQuery.parse({ ...filterParams(row), project_id: s.project_id });
  return { resource: await stats(store, [s.project_id], query), saved_filter: publicFilter(row) };
}

/** The answer of a share: the resource, and for a stats view the saved filter it shows (name and parameters). */
const answer = async (db: Knex, store: AnalyticsStore, s: Shared) =>
  s.resource_type === 'stats_view' ? statsView(db, store, s) : { resource: await render(db, store, s) };

/** `scope` is the project named by `project_id`, or every project the caller sees: then the resource's own. */
export async function createShare(
  db: Knex,
  store: AnalyticsStore,
  actor: Principal,
  scope: Scope,
  input: CreateShareInput,
  baseUrl: string,
) {
  if (input.expires_at && Date.parse(input.expires_at) <= Date.now())
    throw badRequest('expires_at must be in the future', 'invalid_expiry');
  const projectId =
    scope.projectIds.length === 1 ? scope.projectIds[0]! : await projectOfResource(db, actor, scope.projectIds, input);
  if (
    input.resource_type === 'stats_view' &&
    (await findVisible(db, actor, [projectId], input.resource_id)).view !== 'stats'
  )
    throw badRequest('A stats_view share names a saved filter of the stats view', 'saved_filter_view_mismatch');
  // The resource must exist and be readable now: the share answers exactly what its route would.
  await render(db, store, {
    project_id: projectId,
    resource_type: input.resource_type,
    resource_id: input.resource_id,
    redact_bodies: false,
  });
  const token = `shr_${randomBytes(32).toString('base64url')}`;
  const row = await q.insertShare(db, {
    org_id: scope.orgId,
    project_id: projectId,
    resource_type: input.resource_type,
    resource_id: input.resource_id,
    token_hash: hash(token),
    token_hint: token.slice(0, 8),
    expires_at: input.expires_at ?? null,
    redact_bodies: input.redact_bodies,
    created_by: actor.kind === 'user' ? (actor.email ?? actor.sub) : null,
  });
  await recordAudit(db, {
    orgId: scope.orgId,
    actor,
    action: 'share.created',
    resourceType: 'share',
    resourceId: row.id,
    after: toView(row),
  });
  return { ...toView(row), token, url: `${baseUrl}/share/${token}` };
}

export const listShares = async (db: Knex, projectIds: string[]) => (await q.listShareRows(db, projectIds)).map(toView);

export async function revokeShare(db: Knex, actor: Principal, projectIds: string[], id: string) {
  const row = await q.findShare(db, projectIds, id);
  if (!row) throw notFound('Share');
  const after = await q.revokeShareRow(db, row);
  await recordAudit(db, {
    orgId: row.org_id,
    actor,
    action: 'share.revoked',
    resourceType: 'share',
    resourceId: id,
    before: toView(row),
    after: toView(after),
  });
  return toView(after);
}

/** GET /share/:token: the resource, counted; anything not live is the same 404. */
export async function viewShare(db: Knex, store: AnalyticsStore, token: string) {
  const s = token.startsWith('shr_') ? await q.liveShare(db, hash(token)) : undefined;
  if (!s) throw notFound('Share');
  let shown: Awaited<ReturnType<typeof answer>>;
  try {
    shown = await answer(db, store, s);
  } catch {
    throw notFound('Share'); // the resource is gone: no hint of what it was
  }
  await q.countView(db, s.id);
  return { resource_type: s.resource_type, ...shown, expires_at: isoOrNull(s.expires_at) };
}
