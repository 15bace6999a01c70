/**
 * The dependency gate (`npm run lint:deps`, part of `npm test`): which way the layers of the code
 * depend, and no import cycles. The layers (README, "Layout"):
 *
 *   kernel    src/config.ts src/context.ts src/logger.ts src/http src/db src/auth src/util
 *             src/metrics src/temporal (but the worker) src/providers src/filters src/requests/row.ts
 *      ↑
 *   features  src/<feature>/
 *      ↑
 *   wiring    src/runtime.ts src/routes.ts src/services.ts src/schedules.ts src/main.ts src/dev/
 *             src/temporal/worker.ts, activities/, workflows/
 *
 * Features reach the worker only through kernel types (BackgroundService and WorkerLink in
 * src/context.ts), start workflows by name with the input types they own (e.g.
 * src/webhooks/workflow-types.ts), and the runtime hands them what they need. Each workflow imports
 * the type of its own activities only (`XActivities` beside `xActivities` in activities/).
 *
 * Type-only imports count: a cycle through types is still a cycle for a reader. No violation is
 * tolerated (there is no baseline of known ones). Cycles between folders are the second run's
 * (.dependency-cruiser-folders.cjs).
 */

/** Modules a workflow may load at run time (bundled into the workflow sandbox: deterministic, no I/O). */
const WORKFLOW_SAFE = [
  '^workflows/',
  '^node_modules/@temporalio/(workflow|common)/',
  // Constants and search-attribute keys only, no imports but @temporalio/common:
  '^src/temporal/names\\.ts$',
  '^src/webhooks/policy\\.ts$',
];
/**
 * The kernel: what every feature may use and that imports no feature (nor the wiring). Feature-owned
 * services the runtime builds once join AppContext by declaration merging (FeatureServices in
 * src/context.ts), so the kernel never names their types.
 */
const KERNEL = [
  '^src/(config|context|logger)\\.ts$',
  '^src/(http|db|auth|util|metrics|providers|filters)/',
  '^src/temporal/(?!worker\\.ts$)',
  '^src/requests/row\\.ts$',
];
/** The wiring layer: the only code that may import the runtime, the routes, the worker, activities/ and workflows/. */
const WIRING_FILES = '^src/(main|runtime|routes|services|schedules)\\.ts$';
const WIRING = [WIRING_FILES, '^src/dev/', '^src/temporal/worker', '^activities/', '^workflows/'];

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'Import cycles make the layers meaningless and load order fragile. The one deliberate cycle: ' +
        'src/exports/storage.ts loads src/exports/s3-store.ts lazily (a require() inside exportStoreFromConfig, ' +
        'so the AWS SDK is loaded only when S3 is configured), and s3-store.ts implements the ExportStore ' +
        'interface of storage.ts. A cycle made of only those two files is allowed; any other is not.',
      from: {},
      to: { circular: true, via: { pathNot: '^src/exports/(storage|s3-store)\\.ts$' } },
    },
    {
      name: 'features-not-to-wiring',
      severity: 'error',
      comment:
        'A feature (or the kernel) must not import the runtime, the routes, the services or schedule lists, ' +
        'the Temporal worker, activities/ or workflows/: take kernel types (src/context.ts) and let the ' +
        'runtime pass functions in.',
      from: { path: '^src/', pathNot: WIRING },
      to: { path: WIRING },
    },
    {
      name: 'kernel-not-to-features',
      severity: 'error',
      comment:
        'The kernel (KERNEL above: config, context, logger, http, db, auth, util, metrics, temporal but the ' +
        'worker, providers, filters, the request row) imports no feature: what it shares is defined in it, and ' +
        'a service a feature owns joins AppContext through FeatureServices (declaration merging in the feature).',
      from: { path: KERNEL },
      to: { path: '^src/', pathNot: KERNEL },
    },
    {
      name: 'no-foreign-queries',
      severity: 'error',
      comment:
        "A feature reads another feature's data through that feature's service (its exported functions), " +
        'never through its queries.ts: the owner keeps its rules (scope, soft deletes, views) in one place. ' +
        "Types are free (a record type is the owner's contract), and so is the kernel's SQL (src/auth/queries.ts).",
      from: { path: '^src/([^/]+)/', pathNot: WIRING },
      to: {
        path: ['^src/[^/]+/queries\\.ts$', '^src/[^/]+/[^/]+/queries\\.ts$'],
        pathNot: ['^src/$1/', ...KERNEL],
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'workflows-no-node-builtins',
      severity: 'error',
      comment: 'Workflow code runs in the deterministic sandbox: no Node built-ins (fs, crypto, net, timers, …).',
      from: { path: WORKFLOW_SAFE },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'workflows-no-io-modules',
      severity: 'error',
      comment:
        'Workflow code (and the few src modules it loads) may load at run time only other workflow code, ' +
        '@temporalio/workflow and @temporalio/common, and the constant modules listed in WORKFLOW_SAFE. ' +
        'Types may come from anywhere (`import type`: erased, nothing is bundled).',
      from: { path: WORKFLOW_SAFE },
      // preCompilationOnly: gone after compilation (type-only); core modules have their own rule.
      to: { pathNot: WORKFLOW_SAFE, preCompilationOnly: false, dependencyTypesNot: ['core'] },
    },
    {
      name: 'workflows-own-activities-only',
      severity: 'error',
      comment:
        "A workflow imports the type of its own activities (activities/<area>.ts's `XActivities`), never " +
        "the combined type of activities/index.ts, nor activities' dependencies.",
      from: { path: '^workflows/' },
      to: { path: '^activities/(index|deps)\\.ts$' },
    },
    {
      name: 'activities-not-to-wiring',
      severity: 'error',
      comment: 'Activities are built by the runtime: they never import it, the routes, the worker or workflow code.',
      from: { path: '^activities/' },
      to: { path: [WIRING_FILES, '^src/dev/', '^src/temporal/worker', '^workflows/'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['^web/', '^sdk/', '^dist/'] },
    // 'specify': type-only imports count (cycles, layers) and are marked preCompilationOnly (workflow rules).
    tsPreCompilationDeps: 'specify',
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.json'],
    },
    cache: false,
  },
};
