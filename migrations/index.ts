import type { Knex } from 'knex';
import * as m001 from './001_platform';
import * as m002 from './002_tenancy';
import * as m003 from './003_webhooks';
import * as m004 from './004_proxy';
import * as m004b from './004b_proxy_invalidation';
import * as m005 from './005_ingest';
import * as m006 from './006_webhook_outcome_attempt';
import * as m007 from './007_analytics';
import * as m007b from './007b_analytics_fold';
import * as m008 from './008_anomalies';
import * as m009 from './009_request_partitions';
import * as m010 from './010_recommendations';
import * as m011 from './011_alerts';
import * as m012 from './012_security';
import * as m013 from './013_scores';
import * as m014 from './014_evals';
import * as m015 from './015_datasets';
import * as m016 from './016_experiments';
import * as m017 from './017_human_evals';
import * as m018 from './018_prompt_experiments';
import * as m019 from './019_saved_filters';
import * as m020 from './020_shares';
import * as m021 from './021_exports';
import * as m022 from './022_security_excerpt_remask';
import * as m023 from './023_webhook_attempts_recoveries';
import * as m024 from './024_property_rollups';
import * as m025 from './025_user_sessions_index';
import * as m026 from './026_webhook_rotation_auto_disable';
import * as m027 from './027_idempotency_keys';
import * as m028 from './028_webhook_custom_headers';
import * as m029 from './029_webhook_attempt_log_index';
import * as m030 from './030_span_rollups';

/**
 * Migrations are listed here explicitly so they load the same way under tsx, jest and the
 * compiled build. Append new ones in order; never edit one that has shipped.
 */
const migrations: Record<string, Knex.Migration> = {
  '001_platform': m001,
  '002_tenancy': m002,
  '003_webhooks': m003,
  '004_proxy': m004,
  '004b_proxy_invalidation': m004b,
  '005_ingest': m005,
  '006_webhook_outcome_attempt': m006,
  '007_analytics': m007,
  '007b_analytics_fold': m007b,
  '008_anomalies': m008,
  '009_request_partitions': m009,
  '010_recommendations': m010,
  '011_alerts': m011,
  '012_security': m012,
  '013_scores': m013,
  '014_evals': m014,
  '015_datasets': m015,
  '016_experiments': m016,
  '017_human_evals': m017,
  '018_prompt_experiments': m018,
  '019_saved_filters': m019,
  '020_shares': m020,
  '021_exports': m021,
  '022_security_excerpt_remask': m022,
  '023_webhook_attempts_recoveries': m023,
  '024_property_rollups': m024,
  '025_user_sessions_index': m025,
  '026_webhook_rotation_auto_disable': m026,
  '027_idempotency_keys': m027,
  '028_webhook_custom_headers': m028,
  '029_webhook_attempt_log_index': m029,
  '030_span_rollups': m030,
};

export const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(migrations),
  getMigrationName: (name) => name,
  getMigration: async (name) => migrations[name]!,
};
