import {
  alertRuleSummary,
  deliverySummary,
  displayUrl,
  evalRunSummary,
  experimentSummary,
  exportSummary,
  recoverySummary,
  scheduledRunSummary,
} from '../../../src/temporal/summaries';
import { buildSchedules } from '../../../src/schedules';
import type { AppContext } from '../../../src/context';

describe('static summaries shown in the Temporal Web UI', () => {
  it('shows a delivery as event → URL, without credentials, query, fragment or token-like path segments', () => {
    expect(deliverySummary({ eventType: 'request.created', url: 'https://hooks.example.com/x' })).toBe(
      'request.created → https://hooks.example.com/x',
    );
    expect(displayUrl('https://user:pw@hooks.example.com:8443/in/llm?sig=abc&token=s3cr3t#frag')).toBe(
      'https://hooks.example.com:8443/in/llm',
    );
    expect(displayUrl('https://hooks.slack.com/services/T0123ABCD/B0123ABCD/AbCdEfGhIjKlMnOpQrStUvWx')).toBe(
      'https://hooks.slack.com/services/T0123ABCD/B0123ABCD/…',
    );
    expect(displayUrl('https://discord.com/api/webhooks/123456789012345678/' + 'x'.repeat(68))).toBe(
      'https://discord.com/api/webhooks/…/…',
    );
    expect(displayUrl('https://example.com/')).toBe('https://example.com');
    expect(displayUrl('not a url')).toBe('(invalid url)');
    expect(deliverySummary({ eventType: 'trace.completed', url: 'https://a.example/h', redelivery: 2 })).toBe(
      'redelivery 2 of trace.completed → https://a.example/h',
    );
    const s = recoverySummary({
      url: 'https://a.example/h?k=1',
      since: new Date('2026-05-01T12:00:00Z'),
      statuses: ['failed', 'dead_lettered'],
    });
    expect(s).toBe('recover failed, dead_lettered deliveries since 2026-05-01T12:00:00.000Z → https://a.example/h');
  });

  it('names eval runs, experiments, exports and alert rules by what they do', () => {
    expect(evalRunSummary({ evaluatorNames: ['helpfulness', 'toxicity'], targetKind: 'requests', limit: 120 })).toBe(
      'eval run helpfulness, toxicity: up to 120 requests × 2 evaluators',
    );
    expect(experimentSummary({ name: 'baseline', items: 50, repetitions: 2, evaluators: 1 })).toBe(
      'experiment baseline: 50 items × 2 repetitions, 1 evaluator',
    );
    expect(exportSummary({ resource: 'requests', format: 'parquet', includeBodies: false })).toBe(
      'export requests → parquet',
    );
    expect(alertRuleSummary({ name: 'p95 too slow' }, { intervals: [{ every: '1 minutes' }] })).toBe(
      'alert rule "p95 too slow" (every 1 minutes)',
    );
    expect(evalRunSummary({ evaluatorNames: ['n'.repeat(300)], targetKind: 'traces', limit: 1 }).length).toBe(200);
  });

  it('gives every recurring job of the service a summary with its cadence and purpose', () => {
    const defs = buildSchedules({} as AppContext);
    const summaries = defs.map(scheduledRunSummary);
    expect(summaries).toContain(
      'retention (daily at 03:17 UTC): Creates the coming monthly partitions of the request log; ' +
        'drops months past RETENTION_DAYS, empties bodies past BODY_RETENTION_DAYS',
    );
    expect(
      summaries.find((s) => s.startsWith('online-evaluation (every 1 minute): Scores new requests')),
    ).toBeDefined();
    for (const s of summaries) expect(s).not.toMatch(/\.md\)$/);
  });
});
