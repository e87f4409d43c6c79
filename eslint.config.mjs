import tseslint from 'typescript-eslint';

const NODE_BUILTINS = ['assert', 'async_hooks', 'child_process', 'crypto', 'dgram', 'dns', 'events', 'fs', 'http', 'http2',
  'https', 'net', 'os', 'path', 'perf_hooks', 'process', 'readline', 'stream', 'timers', 'tls', 'url', 'util', 'v8', 'vm',
  'worker_threads', 'zlib'];

export default tseslint.config(
  // bench/openai-agents is a package of its own (Temporal's integration, for comparison), built by the bench runner.
  { ignores: ['dist/**', 'dist-bench/**', 'bench/openai-agents/**', 'node_modules/**', '.tools/**', '.waveloop/**', 'bin/**', 'scripts/**', 'eslint.config.mjs'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    // Workflow code is replayed: it must be deterministic and do no I/O. It may import only
    // Temporal's workflow API, zod, and the pure modules of src/common and src/workflows.
    files: ['src/workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [...NODE_BUILTINS, ...NODE_BUILTINS.map((m) => `node:${m}`)].map((name) => ({ name, message: 'Workflow code must not do I/O.' })),
        patterns: [
          { group: ['@temporalio/client', '@temporalio/worker', '@temporalio/activity', 'openai', 'better-sqlite3'], message: 'Workflow code must not do I/O.' },
          { group: ['../activities', '../activities/*', '../tools/*', '../tools', '../client/*', '../worker/*', '../config'], allowTypeImports: true, message: 'Workflows import activity types only.' },
        ],
      }],
      'no-restricted-globals': ['error', { name: 'fetch', message: 'Workflow code must not do I/O.' }],
    },
  },
);
