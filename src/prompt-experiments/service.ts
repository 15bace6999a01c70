import type { Knex } from 'knex';
import type { Principal } from '../auth/principal';
import { createDataset, addFromProduction } from '../datasets/service';
import { itemsAt } from '../datasets/service';
import { itemScores } from '../experiments/service';
import { toView, type ExperimentDeps } from '../experiments/service';
import { cancelExperiment, createExperiment } from '../experiments/write';
import { badRequest, notFound } from '../http/errors';
import { oneProject } from '../score-configs/service';
import * as q from './queries';
import type { CreatePromptExperimentInput } from './schemas';
import { isoText } from '../db/convert';
import type { Scope } from '../http/route';

/**
 * Prompt experiments: up to 8 prompt variants (versions or inline templates, providers, models),
 * each an experiment (its own `experiment-<id>` workflow) over the same dataset items — a dataset
 * version, or a production sample kept as a new dataset — answered as a grid with a winner per
 * score name.
 */

export async function createPromptExperiment(
  deps: ExperimentDeps,
  actor: Principal,
  scope: Scope,
  input: CreatePromptExperimentInput,
) {
  const { db } = deps;
  const projectId = oneProject(scope);
  const one = { orgId: scope.orgId, projectIds: [projectId] };
  let datasetId: string;
  let version: string | undefined;
  let split: string | undefined;
  if ('dataset_id' in input.items) {
    [datasetId, version, split] = [input.items.dataset_id, input.items.dataset_version, input.items.split];
  } else {
    const ds = await createDataset(db, actor, one, {
      name: `${input.name} · sample ${new Date().toISOString()}`,
      description: 'production sample of a prompt experiment',
    });
    const added = await addFromProduction(db, actor, [projectId], ds.id, {
      source: input.items.production,
      sample: input.items.sample,
    });
    if (!added.version) throw badRequest('The production sample is empty', 'no_targets');
    [datasetId, version] = [ds.id, added.version];
  }
  const experiments = [];
  for (const [i, v] of input.variants.entries()) {
    const label = v.label ?? v.subject.prompt ?? `${v.subject.provider}/${v.subject.model ?? ''} #${i + 1}`;
    experiments.push(
      await createExperiment(deps, actor, one, {
        name: `${input.name} · ${label}`,
        dataset_id: datasetId,
        dataset_version: version,
        split,
        subject: v.subject,
        evaluator_ids: input.evaluator_ids,
        repetitions: input.repetitions,
        concurrency: input.concurrency,
      }),
    );
    version ??= experiments[0]!.dataset_version;
  }
  const variants = input.variants.map((v, i) => ({
    label: v.label ?? v.subject.prompt ?? `${v.subject.provider}/${v.subject.model ?? ''} #${i + 1}`,
    subject: v.subject,
  }));
  const row = await q.insertPromptExperiment(db, {
    org_id: scope.orgId,
    project_id: projectId,
    name: input.name,
    dataset_id: datasetId,
    dataset_version: experiments[0]!.dataset_version,
    variants: JSON.stringify(variants),
    experiment_ids: experiments.map((e) => e.id),
    evaluator_ids: input.evaluator_ids,
    created_by: actor.kind === 'user' ? (actor.email ?? actor.sub) : null,
  });
  return grid(db, row);
}

async function grid(db: Knex, p: q.PromptExperimentRecord) {
  const exps = await Promise.all(
    p.experiment_ids.map(async (id) => toView(db, (await db('experiments').where({ id }).first())!)),
  );
  const variants = p.variants.map((v, index) => ({
    index,
    label: v.label,
    experiment_id: exps[index]!.id,
    status: exps[index]!.status,
    scores: exps[index]!.scores,
    cost_usd: exps[index]!.cost_usd,
    latency_p50_ms: exps[index]!.latency_p50_ms,
  }));
  const items = await itemsAt(db, p.dataset_id, {
    version: isoText(p.dataset_version),
    status: 'active',
    after: null,
    limit: 10_000,
  });
  const runs = await Promise.all(
    exps.map(async (e) => ({
      runs: await db('experiment_items').where({ experiment_id: e.id }).orderBy('repetition'),
      scores: await itemScores(db, e.id),
    })),
  );
  const rows = items
    .filter((i) => runs.some((r) => r.runs.some((x) => x.item_id === i.item_id)))
    .map((i) => ({
      item_id: i.item_id as string,
      input: i.input ?? null,
      expected_output: i.expected_output ?? null,
      cells: runs.map((r) => {
        const mine = r.runs.filter((x) => x.item_id === i.item_id);
        const all = mine.map((x) => r.scores.get(`${x.item_id}#${x.repetition}`) ?? {});
        const names = [...new Set(all.flatMap((s) => Object.keys(s)))];
        const scores = Object.fromEntries(
          names
            .map((n) => {
              const vs = all.map((s) => s[n]).filter((v): v is number => typeof v === 'number');
              return [n, vs.reduce((a, b) => a + b, 0) / vs.length];
            })
            .filter(([, v]) => Number.isFinite(v)),
        );
        return { outputs: mine.map((x) => x.output ?? null), scores };
      }),
    }));
  const names = [...new Set(variants.flatMap((v) => v.scores.map((s) => s.name)))].sort();
  const winners = names.flatMap((name) => {
    const ranked = variants
      .map((v) => ({ v, mean: v.scores.find((s) => s.name === name)?.mean ?? null }))
      .filter((x): x is { v: (typeof variants)[number]; mean: number } => x.mean !== null)
      .sort((a, b) => b.mean - a.mean || a.v.cost_usd - b.v.cost_usd);
    return ranked.length
      ? [{ name, variant: ranked[0]!.v.index, label: ranked[0]!.v.label, mean: ranked[0]!.mean }]
      : [];
  });
  const statuses = variants.map((v) => v.status);
  const status = statuses.every((s) => s === 'completed')
    ? 'completed'
    : statuses.some((s) => s === 'running' || s === 'awaiting_outputs')
      ? 'running'
      : statuses.includes('cancelled')
        ? 'cancelled'
        : 'failed';
  return {
    id: p.id,
    name: p.name,
    status,
    dataset_id: p.dataset_id,
    dataset_version: isoText(p.dataset_version),
    variants,
    rows,
    winners,
    created_at: isoText(p.created_at),
  } as never;
}

async function requireOne(db: Knex, projectIds: string[], id: string) {
  const p = await q.findPromptExperiment(db, projectIds, id);
  if (!p) throw notFound('Prompt experiment');
  return p;
}
export const getPromptExperiment = async (db: Knex, projectIds: string[], id: string) =>
  grid(db, await requireOne(db, projectIds, id));
export const listPromptExperiments = async (db: Knex, projectIds: string[]) =>
  Promise.all((await q.listPromptExperimentRows(db, projectIds)).map((p) => grid(db, p)));
export async function cancelPromptExperiment(deps: ExperimentDeps, actor: Principal, projectIds: string[], id: string) {
  const p = await requireOne(deps.db, projectIds, id);
  for (const e of p.experiment_ids) await cancelExperiment(deps, actor, projectIds, e);
  return grid(deps.db, p);
}
