import tseslint from 'typescript-eslint';

const NODE_BUILTINS = ['assert', 'async_hooks', 'buffer', 'child_process', 'crypto', 'dgram', 'dns', 'events', 'fs', 'http', 'http2',
  'https', 'net', 'os', 'path', 'perf_hooks', 'process', 'readline', 'stream', 'timers', 'tls', 'url', 'util', 'v8', 'vm',
  'worker_threads', 'zlib'];

/** Imports that do I/O or exist only in Node: banned in workflow code and in src/common, which it imports. */
function noIo(message) {
  return {
    paths: [...NODE_BUILTINS, ...NODE_BUILTINS.map((m) => `node:${m}`)].map((name) => ({ name, message })),
    patterns: [{ group: ['@temporalio/client', '@temporalio/worker', '@temporalio/activity', '@temporalio/testing', 'openai', 'better-sqlite3'], message }],
  };
}

/** Globals that do I/O, read the process, or are missing from the workflow sandbox. */
function noIoGlobals(where) {
  return [
    { name: 'fetch', message: `${where} must not do I/O.` },
    { name: 'process', message: `${where} must not read the process or its environment.` },
    { name: 'Buffer', message: `The workflow sandbox, where ${where} runs, has no Buffer: use Uint8Array and TextEncoder.` },
  ];
}

export default tseslint.config(
  // bench/openai-agents is a package of its own (Temporal's integration, for comparison), built by the bench runner.
  { ignores: ['dist/**', 'dist-bench/**', 'bench/openai-agents/**', 'node_modules/**', '.tools/**', '.waveloop/**', '.test-projects/**', 'bin/**', 'scripts/**', 'eslint.config.mjs'] },
  ...tseslint.configs.recommended,
  // CommonJS files (preloads, the failure converter the SDK loads by path) load modules with require().
  { files: ['**/*.cjs'], rules: { '@typescript-eslint/no-require-imports': 'off' } },
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
        paths: noIo('Workflow code must not do I/O.').paths,
        patterns: [
          ...noIo('Workflow code must not do I/O.').patterns,
          { group: ['../config', '../payloads', '../payloads/*'], allowTypeImports: true, message: 'Workflow code must not do I/O: configuration reads the environment, payload codecs run outside workflows.' },
          { group: ['../activities', '../activities/*', '../tools/*', '../tools', '../client/*', '../worker/*'], allowTypeImports: true, message: 'Workflows import activity types only.' },
        ],
      }],
      'no-restricted-globals': ['error', ...noIoGlobals('Workflow code')],
    },
  },
  {
    // src/common is what workflows, activities, the worker and the client share, and workflow code
    // imports it: the same rules hold (no I/O, nothing Node-only), and it imports only its own
    // modules, zod and Temporal's common and workflow APIs.
    files: ['src/common/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: noIo('src/common must not do I/O (workflow code imports it).').paths,
        patterns: [
          ...noIo('src/common must not do I/O (workflow code imports it).').patterns,
          { group: ['../*'], message: 'src/common imports only its own modules: the other folders import it, not the other way round.' },
        ],
      }],
      'no-restricted-globals': ['error', ...noIoGlobals('src/common')],
    },
  },
);
