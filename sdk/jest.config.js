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
  testTimeout: 20_000,
  // Serial on purpose: the retry tests measure real time, and a sibling worker's CPU
  // burst on a 2-core machine can delay a timer by hundreds of ms.
  maxWorkers: 1,
};
