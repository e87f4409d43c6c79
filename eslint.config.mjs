import tseslint from 'typescript-eslint';

const NODE_BUILTINS = [
  'assert',
  'async_hooks',
  'buffer',
  'child_process',
  'crypto',
  'dgram',
  'dns',
  'events',
  'fs',
  'http',
  'http2',
  'https',
  'net',
  'os',
  'path',
  'perf_hooks',
  'process',
  'readline',
  'stream',
  'timers',
  'tls',
  'url',
  'util',
  'v8',
  'vm',
  'worker_threads',
  'zlib',
];

/** Imports that do I/O or exist only in Node: banned in workflow code and in src/contract, which it imports. */
function noIo(message) {
  return {
    paths: [...NODE_BUILTINS, ...NODE_BUILTINS.map((m) => `node:${m}`)].map((name) => ({ name, message })),
    patterns: [
      {
        group: [
          '@temporalio/client',
          '@temporalio/worker',
          '@temporalio/activity',
          '@temporalio/testing',
          'openai',
          'better-sqlite3',
        ],
        message,
      },
    ],
  };
}

/** Globals that do I/O, read the process, or are missing from the workflow sandbox. */
function noIoGlobals(where) {
  return [
    { name: 'fetch', message: `${where} must not do I/O.` },
    { name: 'process', message: `${where} must not read the process or its environment.` },
    {
      name: 'Buffer',
      message: `The workflow sandbox, where ${where} runs, has no Buffer: use Uint8Array and TextEncoder.`,
    },
  ];
}

/**
 * The layers of src: the folders (and top-level modules) each folder may import besides its own.
 * `cli` may import anything and nothing imports it (only bin/ runs it); `index` is the library's
 * entry point. docs/development.md says the same in words.
 */
const LAYERS = {
  contract: [],
  workflows: ['contract'],
  'telemetry/workflow': ['contract'],
  tools: ['contract'],
  agents: ['contract', 'tools'],
  demo: ['contract', 'tools', 'agents'],
  payloads: ['contract'],
  settings: ['contract', 'payloads'],
  mcp: ['contract', 'tools'],
  audit: ['contract', 'settings'],
  activities: ['contract', 'tools', 'agents', 'payloads', 'audit'],
  telemetry: ['contract', 'telemetry/workflow'],
  temporal: ['contract', 'settings', 'payloads'],
  project: ['contract', 'settings', 'tools', 'agents', 'demo', 'mcp', 'activities'],
  server: ['contract', 'settings'],
  worker: [
    'audit',
    'contract',
    'settings',
    'activities',
    'tools',
    'agents',
    'demo',
    'mcp',
    'payloads',
    'project',
    'telemetry',
    'temporal',
  ],
  client: ['contract', 'settings', 'payloads', 'temporal'],
  http: ['contract', 'settings', 'client', 'temporal', 'payloads', 'audit'],
  index: [
    'contract',
    'settings',
    'tools',
    'agents',
    'mcp',
    'project',
    'worker',
    'telemetry',
    'temporal',
    'client',
    'audit',
  ],
};
const FOLDERS = Object.keys(LAYERS).filter((name) => name !== 'index');
/** Workflow code may import these as types only (`proxyActivities<typeof activities>`). */
const WORKFLOW_TYPE_IMPORTS = ['activities'];

/**
 * `no-restricted-imports` patterns that refuse a relative import, from a file `depth` folders below
 * src, of any folder of src not in `allowed` (the folder itself aside).
 */
function layerPatterns(layer, depth, allowed) {
  const up = depth === 0 ? '\\./' : `(\\.\\./){${depth}}`;
  const forbidden = [...FOLDERS, 'cli'].filter(
    (name) => name !== layer && !allowed.includes(name) && !layer.startsWith(`${name}/`),
  );
  const ownSubfolders = FOLDERS.filter((name) => name.startsWith(`${layer}/`));
  return forbidden
    .filter((name) => !ownSubfolders.includes(name))
    .map((name) => ({
      regex: `^${up}${name.replace('/', '\\/')}(\\/|$)`,
      message: `src/${layer} may import only ${allowed.length ? allowed.map((a) => `src/${a}`).join(', ') : 'its own modules'} (the layers are in eslint.config.mjs and docs/development.md).`,
      ...(layer === 'workflows' && WORKFLOW_TYPE_IMPORTS.includes(name)
        ? { allowTypeImports: true, message: 'Workflows import activity types only.' }
        : {}),
    }));
}

/** The files of `layer` that sit `depth` folders below src. */
function layerFiles(layer, depth) {
  if (layer === 'index' || layer === 'settings') return depth === 0 ? [`src/${layer}.ts`] : [];
  const levels = layer.split('/').length;
  return depth < levels ? [] : [`src/${layer}/${'*/'.repeat(depth - levels)}*.ts`];
}

/** One config block a layer and depth: its layering patterns, plus `extra` (the no-I/O rules of workflow-safe code). */
function layerRules(extra = {}) {
  return Object.entries(LAYERS).flatMap(([layer, allowed]) =>
    [0, 1, 2, 3].flatMap((depth) => {
      const files = layerFiles(layer, depth);
      if (files.length === 0) return [];
      const io = extra[layer];
      return [
        {
          files,
          ...(layer === 'telemetry' ? { ignores: ['src/telemetry/workflow/**'] } : {}),
          rules: {
            'no-restricted-imports': [
              'error',
              { paths: io?.paths ?? [], patterns: [...(io?.patterns ?? []), ...layerPatterns(layer, depth, allowed)] },
            ],
            ...(io ? { 'no-restricted-globals': ['error', ...noIoGlobals(`src/${layer}`)] } : {}),
          },
        },
      ];
    }),
  );
}

/** The rules of code that runs in the workflow sandbox, or that workflow code imports: no I/O, nothing Node-only. */
const WORKFLOW_SAFE = Object.fromEntries(
  ['workflows', 'telemetry/workflow', 'contract'].map((layer) => [
    layer,
    noIo(`src/${layer} must not do I/O: it runs in the workflow sandbox, or workflow code imports it.`),
  ]),
);
export default tseslint.config(
  // bench/openai-agents is a package of its own (Temporal's integration, for comparison), built by the bench runner.
  {
    ignores: [
      'dist/**',
      'dist-bench/**',
      'bench/openai-agents/**',
      'node_modules/**',
      '.tools/**',
      '.waveloop/**',
      '.test-projects/**',
      'bin/**',
      'scripts/**',
      'eslint.config.mjs',
    ],
  },
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
  // The layers of src; workflow code and what it imports (the contract, workflow telemetry) also do no I/O.
  ...layerRules(WORKFLOW_SAFE),
);
