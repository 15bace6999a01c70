import { z } from 'zod';

/**
 * Every setting of the service, read once from the environment and validated.
 * A bad value stops start-up with a message naming the variable.
 */
const optionalUrl = z
  .string()
  .url()
  .optional()
  .or(z.literal('').transform(() => undefined));

const port = z.coerce.number().int().min(0).max(65535);

const schema = z.object({
  PORT: port.default(8080),
  HOST: z.string().min(1).default('0.0.0.0'),
  ROLE: z.enum(['api', 'worker', 'exports', 'all']).default('all'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATABASE_URL: z.string().url().optional(),
  /** Apply pending migrations when a production role starts (the compose api service sets it). */
  MIGRATE_ON_START: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  TEMPORAL_ADDRESS: z
    .string()
    .regex(/^[^\s:]+:\d+$/, 'must be host:port')
    .default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('llm-gateway'),
  TEMPORAL_UI_PORT: port.default(8233),
  TEMPORAL_CLI_PATH: z.string().optional(),
  TEMPORAL_TEST_SERVER_PATH: z.string().optional(),
  /**
   * A workflow bundle written by `npm run bundle:workflows`: the worker loads it instead of bundling the
   * workflows itself at start (webpack, over a second of CPU per worker process).
   */
  TEMPORAL_WORKFLOW_BUNDLE: z.string().min(1).optional(),
  AUTH_JWKS_URL: optionalUrl,
  AUTH_JWT_ISSUER: z.string().optional(),
  AUTH_JWT_AUDIENCE: z.string().optional(),
  AUTH_JWT_SECRET: z.string().min(16, 'must be at least 16 characters').optional(),
  /** Minimum wait before the JWKS is fetched again for an unknown `kid` (key rotation). */
  AUTH_JWKS_COOLDOWN_MS: z.coerce.number().int().min(0).default(30_000),
  /** How long a fetched JWKS is trusted before it is fetched again. */
  AUTH_JWKS_CACHE_MAX_AGE_MS: z.coerce.number().int().min(0).default(600_000),
  /** Clock skew allowed when checking JWT `exp`/`nbf`. */
  AUTH_JWT_CLOCK_TOLERANCE_S: z.coerce.number().int().min(0).max(300).default(5),
  /** Lifetime of an organization invitation. */
  INVITATION_TTL_HOURS: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 90)
    .default(168),
  /** 32-byte key (64 hex chars or base64) that encrypts provider keys at rest. */
  MASTER_KEY: z.string().optional(),
  MASTER_KEY_ID: z.string().min(1).default('k1'),
  /** Retired master keys still used to decrypt older rows: `id:key,id:key` (key as 64 hex or base64). */
  MASTER_KEYS_OLD: z.string().optional(),
  JSON_BODY_LIMIT: z
    .string()
    .regex(/^\d+(b|kb|mb)$/i, 'must look like 1mb or 512kb')
    .default('1mb'),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).default(10_000),
  /** Version of the API named in the OpenAPI document. */
  API_VERSION: z.string().default('1.0.0'),
  /** When set, GET /metrics needs `Authorization: Bearer <METRICS_TOKEN>`. */
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  /** Check every REST response against its route contract (a mismatch answers 500); the test suite turns it on. */
  CONTRACT_CHECK_RESPONSES: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
  /**
   * Development/tests only: comma-separated CIDRs or IPs that webhook delivery may reach although private/loopback
   * (e.g. `127.0.0.1/32`). Cloud-metadata addresses stay blocked.
   */
  WEBHOOK_ALLOW_PRIVATE_CIDRS: z
    .string()
    .default('')
    .refine(
      (v) => v.split(',').every((c) => !c.trim() || /^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(c.trim())),
      'must be comma-separated IPs or CIDRs',
    ),
  /**
   * PEM file with extra CA certificates trusted for webhook HTTPS (in addition to the system roots), e.g. a test or
   * internal CA.
   */
  WEBHOOK_CA_FILE: z.string().optional(),
  /** Backstop poll of the event outbox when no NOTIFY arrives (ms). */
  WEBHOOK_DISPATCH_POLL_MS: z.coerce.number().int().min(100).default(5_000),
  /** The send window of one attempt (all hops); the spec's is 10 s, tests shorten it. */
  WEBHOOK_ATTEMPT_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /**
   * Isolation (docs/webhooks.md#isolation-a-slow-receiver): sends in flight per webhook on one worker; more wait
   * durably, uncounted.
   */
  WEBHOOK_ENDPOINT_MAX_IN_FLIGHT: z.coerce.number().int().min(1).max(1000).default(4),
  /** Consecutive timeouts of one webhook that open its circuit (0 disables the circuit). */
  WEBHOOK_CIRCUIT_TIMEOUTS: z.coerce.number().int().min(0).max(1000).default(3),
  /** How long an open circuit fails attempts at once (counted failed attempts, `endpoint timing out`). */
  WEBHOOK_CIRCUIT_OPEN_MS: z.coerce.number().int().min(1000).max(3_600_000).default(60_000),
  /** Pace at which a busy webhook's waiting deliveries are woken to ask again (per webhook, per worker). */
  WEBHOOK_BUSY_WAKES_PER_S: z.coerce.number().min(0.1).max(1000).default(10),
  /** Auto-disable (docs/webhooks.md#auto-disable): how long an endpoint must have been failing. */
  WEBHOOK_AUTO_DISABLE_AFTER_S: z.coerce
    .number()
    .int()
    .min(0)
    .max(90 * 86_400)
    .default(5 * 86_400),
  /** …and how many deliveries in a row must have been dead-lettered; 0 turns auto-disable off. */
  WEBHOOK_AUTO_DISABLE_MIN_FAILURES: z.coerce.number().int().min(0).max(1_000_000).default(20),
  /** Provider proxy (docs/proxy.md). Base URLs override each provider's public API address. */
  PROVIDER_OPENAI_BASE_URL: z.string().url().default('https://api.openai.com'),
  PROVIDER_ANTHROPIC_BASE_URL: z.string().url().default('https://api.anthropic.com'),
  PROVIDER_GEMINI_BASE_URL: z.string().url().default('https://generativelanguage.googleapis.com'),
  PROVIDER_MISTRAL_BASE_URL: z.string().url().default('https://api.mistral.ai'),
  PROVIDER_GROQ_BASE_URL: z.string().url().default('https://api.groq.com/openai'),
  PROVIDER_DEEPSEEK_BASE_URL: z.string().url().default('https://api.deepseek.com'),
  PROVIDER_XAI_BASE_URL: z.string().url().default('https://api.x.ai'),
  PROVIDER_TOGETHER_BASE_URL: z.string().url().default('https://api.together.xyz'),
  PROVIDER_OPENROUTER_BASE_URL: z.string().url().default('https://openrouter.ai/api'),
  PROVIDER_OLLAMA_BASE_URL: z.string().url().default('http://127.0.0.1:11434'),
  PROXY_UPSTREAM_TIMEOUT_MS: z.coerce.number().int().min(1).default(600_000),
  PROXY_BODY_LIMIT: z
    .string()
    .regex(/^\d+(b|kb|mb)$/i, 'must look like 20mb or 512kb')
    .default('20mb'),
  /** Stored request/response bodies are cut at this many bytes (full mode). */
  PROXY_LOG_BODY_MAX_BYTES: z.coerce.number().int().min(0).default(1_048_576),
  PROXY_LOG_QUEUE_MAX: z.coerce.number().int().min(1).default(20_000),
  PROXY_LOG_BATCH_SIZE: z.coerce.number().int().min(1).max(5000).default(500),
  PROXY_LOG_FLUSH_MS: z.coerce.number().int().min(1).default(50),
  /**
   * Local journal of request rows not yet committed, replayed at start after a crash (docs/proxy.md); `off` disables
   * it.
   */
  REQUEST_LOG_JOURNAL_DIR: z.string().min(1).default('.data/request-journal'),
  /** fdatasync the journal this often, for machine crashes (0: never; a killed process loses nothing without it). */
  REQUEST_LOG_JOURNAL_FSYNC_MS: z.coerce.number().int().min(0).default(0),
  /**
   * Per-process memo of API-key auth, provider keys and rate-limit settings; changes evict it at once via NOTIFY (0
   * disables).
   */
  PROXY_KEY_CACHE_TTL_MS: z.coerce.number().int().min(0).default(60_000),
  PROXY_CACHE_CLEANUP_INTERVAL_MS: z.coerce.number().int().min(1000).default(60_000),
  PROXY_TOKENIZER_PRELOAD: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
  /**
   * Trace ingest (docs/ingest.md): size caps of /ingest/* requests, of one input/output/metadata field, and of a batch.
   */
  INGEST_MAX_REQUEST_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(5 * 1024 * 1024),
  INGEST_MAX_FIELD_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(1024 * 1024),
  INGEST_MAX_BATCH_OPS: z.coerce.number().int().min(1).max(10_000).default(1000),
  /** Cap on a decompressed OTLP /v1/traces body. */
  OTLP_MAX_REQUEST_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(20 * 1024 * 1024),
  /** Ingest batch writer: concurrent transactions, operations per transaction, operations queued before 503. */
  INGEST_WRITER_CONCURRENCY: z.coerce.number().int().min(1).max(32).default(3),
  INGEST_WRITER_MAX_BATCH_OPS: z.coerce.number().int().min(1).default(1000),
  INGEST_WRITER_MAX_QUEUED_OPS: z.coerce.number().int().min(1).default(100_000),
  /**
   * Ended traces with spans still open get trace.completed after this long without activity (0 disables the sweeper).
   */
  INGEST_TRACE_IDLE_TIMEOUT_MS: z.coerce.number().int().min(0).default(3_600_000),
  INGEST_SWEEP_INTERVAL_MS: z.coerce.number().int().min(100).default(60_000),
  /**
   * Retention (docs/retention.md): request-log months wholly older than this many days are dropped (unset: kept
   * forever).
   */
  RETENTION_DAYS: z.coerce.number().int().min(1).optional(),
  /** Request and response bodies older than this many days are emptied (unset: kept as long as the row). */
  BODY_RETENTION_DAYS: z.coerce.number().int().min(1).optional(),
  /** The built dashboard (web/dist) served at `/`; relative to the working directory. */
  WEB_DIR: z.string().min(1).default('web/dist'),
  /** The Temporal Web UI the dashboard links deliveries and exports to (`npm run dev` sets it). */
  TEMPORAL_UI_URL: optionalUrl,
  /**
   * Dashboard sign-in through an identity provider (OIDC authorization code + PKCE): issuer URL and public client id.
   */
  UI_OIDC_ISSUER: optionalUrl,
  UI_OIDC_CLIENT_ID: z.string().min(1).optional(),
  UI_OIDC_SCOPE: z.string().min(1).default('openid email profile'),
  /** Exports (docs/exports.md): where files are written with the local store (relative to the working directory). */
  EXPORT_DIR: z.string().min(1).default('.data/exports'),
  /** Hours an export's file is kept after it is written; the `export-cleanup` schedule deletes it then. */
  EXPORT_TTL_HOURS: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 90)
    .default(24),
  /** Lifetime of a signed download link (capped by the file's own expiry). */
  EXPORT_LINK_TTL_MINUTES: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 60 * 7)
    .default(60),
  /**
   * Task queue of the export activities (default `<TEMPORAL_TASK_QUEUE>-exports`): heavy file writing kept apart from
   * deliveries.
   */
  EXPORT_TASK_QUEUE: z.string().min(1).optional(),
  /** Rows per part: each part is one activity, written again whole if its worker dies. */
  EXPORT_PART_ROWS: z.coerce.number().int().min(100).max(1_000_000).default(50_000),
  /** Whether the worker and all roles also run the export activities (false: only ROLE=exports processes do). */
  EXPORT_WORKER: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
  /** Exports one worker process writes at once. */
  EXPORT_CONCURRENCY: z.coerce.number().int().min(1).max(32).default(2),
  /**
   * With a bucket set, files go to this S3-compatible store instead of EXPORT_DIR (credentials: the AWS SDK's usual
   * chain).
   */
  EXPORT_S3_BUCKET: z.string().min(1).optional(),
  EXPORT_S3_REGION: z.string().min(1).default('us-east-1'),
  /** An S3-compatible endpoint (MinIO, R2, …); unset means AWS itself. */
  EXPORT_S3_ENDPOINT: optionalUrl,
  EXPORT_S3_PREFIX: z.string().default('exports/'),
  EXPORT_S3_FORCE_PATH_STYLE: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
});

export type Config = z.infer<typeof schema>;

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Empty strings mean "unset", as they do in most .env files and compose files.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = schema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const c = parsed.data;
  if (
    c.RETENTION_DAYS !== undefined &&
    c.BODY_RETENTION_DAYS !== undefined &&
    c.BODY_RETENTION_DAYS > c.RETENTION_DAYS
  ) {
    throw new ConfigError(
      'Invalid configuration:\n  BODY_RETENTION_DAYS: must not exceed RETENTION_DAYS (bodies go with their rows)',
    );
  }
  return c;
}

/** The documented settings, for the README table and `--help`. */
export const configKeys = Object.keys(schema.shape) as (keyof Config)[];
