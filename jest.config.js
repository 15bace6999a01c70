/** Jest runs TypeScript through SWC (fast, no type-check: `npm run typecheck` does that). */
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.(t|j)sx?$': [
      '@swc/jest',
      { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } },
    ],
  },
  // ESM-only dependencies are compiled to CommonJS for Jest.
  transformIgnorePatterns: ['/node_modules/(?!(jose|@seriousme|@secretlint|thrift/node_modules/uuid|uuid)/)'],
  globalSetup: '<rootDir>/test/setup/global-setup.ts',
  globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
  testTimeout: 60_000,
  // A leaked handle must never hang CI (which has a hard time limit); jest still reports it.
  forceExit: true,
};

// CI asks for a machine-readable summary (printed as "N passed, N failed" by .ci/run).
if (process.env.JEST_JSON) {
  module.exports.reporters = [
    'default',
    ['<rootDir>/test/setup/json-summary-reporter.js', { outputFile: process.env.JEST_JSON }],
  ];
}
