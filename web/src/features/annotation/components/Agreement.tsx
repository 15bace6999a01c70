import { Stack, Text } from '@mantine/core';
import type { Schema } from '../../../api/types';
import { DataTable, type Col } from '../../../components/DataTable';
import { DetailDrawer } from '../../../components/DetailDrawer';
import { QueryState } from '../../../components/QueryState';
import * as fmt from '../../../lib/format';
import { useAgreement } from '../hooks/useAnnotation';

type Row = Schema<'HumanEvalAgreement'>['configs'][number];
const num = (v: number | null) => (v === null ? '—' : v.toFixed(2));

/** Landis and Koch's words for a kappa or alpha, so a number reads as a judgement. */
function strength(v: number | null): string {
  if (v === null) return 'not enough ratings';
  if (v < 0) return 'worse than chance';
  if (v < 0.2) return 'slight';
  if (v < 0.4) return 'fair';
  if (v < 0.6) return 'moderate';
  if (v < 0.8) return 'substantial';
  return 'almost perfect';
}

const judged = (v: number | null) => (v === null ? strength(v) : `${num(v)} · ${strength(v)}`);

/** The judge (an evaluator scoring the same targets) against the reviewers: agreement or correlation. */
function judge(r: Row): string {
  const j = r.judge;
  if (!j) return 'no evaluator scores';
  const n = fmt.count(j.evaluator_scores, 'score');
  if (j.percent_agreement !== null) return `${fmt.pct(j.percent_agreement)} agree, κ ${num(j.kappa)} (${n})`;
  return `r ${num(j.correlation)}, mean |Δ| ${num(j.mean_abs_diff)} (${n})`;
}

const COLUMNS: Col<Row>[] = [
  { key: 'n', label: 'Score', render: (r) => `${r.name} (${r.data_type})` },
  { key: 'i', label: 'Items rated', numeric: true, render: (r) => fmt.int(r.items_rated) },
  { key: 'r', label: 'Ratings', numeric: true, render: (r) => fmt.int(r.ratings) },
  // Fleiss' kappa is for categories: a numeric config has none.
  { key: 'k', label: 'Fleiss’ κ', render: (r) => (r.data_type === 'numeric' ? '—' : judged(r.fleiss_kappa)) },
  { key: 'a', label: 'Krippendorff’s α', render: (r) => judged(r.krippendorff_alpha) },
  { key: 'j', label: 'Judge vs reviewers', render: judge },
];

/** How far the campaign's reviewers agree, per score config, in a drawer (`/human-evals/:id/agreement`). */
export function Agreement({ campaign, onClose }: { campaign: Schema<'HumanEval'> | null; onClose: () => void }) {
  const agreement = useAgreement(campaign?.id ?? null);
  return (
    <DetailDrawer
      opened={campaign !== null}
      onClose={onClose}
      title={`Agreement in ${campaign?.name ?? 'the campaign'}`}
    >
      <Stack gap="sm">
        <Text size="sm" c="dimmed">
          Between reviewers: Fleiss’ κ (categories, items with the same number of ratings) and Krippendorff’s α (missing
          ratings allowed). Against an evaluator that scored the same calls or traces: its agreement with the majority.
        </Text>
        <QueryState query={agreement} what="the agreement">
          {(a) => (
            <DataTable
              caption="Agreement per score config"
              rows={a.configs}
              rowKey={(r) => r.config_id}
              minWidth={720}
              columns={COLUMNS}
            />
          )}
        </QueryState>
      </Stack>
    </DetailDrawer>
  );
}
