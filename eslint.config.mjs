// Lint gate (npm run lint): typescript-eslint's recommended rules plus the promise rules that need
// types, and the workflow sandbox's limits. Layer and cycle rules live in .dependency-cruiser.cjs.
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const nodeBuiltins = builtinModules.flatMap((m) => [m, `node:${m}`]);

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'web/**', 'sdk/**', '.data/**', '.tools/**', 'coverage/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': [
        'error',
        { checksVoidReturn: { arguments: false, attributes: false } },
      ],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      // Database rows are still `Record<string, any>` in a dozen services; typed rows (one record type
      // per table with shared converters) replace them, and this rule comes on with that step.
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    // CommonJS by design: jest's config and reporter, the lockfile script.
    files: ['**/*.js', '**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Workflows run in Temporal's deterministic sandbox: no Node built-ins, no I/O libraries.
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [...nodeBuiltins, 'pg', 'knex', 'undici', 'pino'].map((name) => ({
            name,
            message: 'workflows are deterministic and free of I/O: use an activity',
          })),
        },
      ],
    },
  },
);
