import { describe, expect, it } from 'vitest';
import { SETTING_NAMES, SETTINGS, type SettingName } from '../../../src/contract/settings/declarations';
import { resolveRunSettings, resolveToolSettings, resolveTreeSettings } from '../../../src/contract/settings/resolve';

/**
 * Every setting, with a value for each layer that may give it and what wins. A run's input beats
 * its agent, the agent beats the worker, the worker beats the default; lists that join (webhooks,
 * tools to approve) hold every layer's items once. `-` : the layer may not give the setting.
 */
type Row = {
  run: unknown;
  agent: unknown;
  worker: unknown;
  tree: unknown;
  tool?: unknown;
  default: unknown;
  treeDefault?: unknown;
};
const _ = undefined;
const NO = '-';
const TABLE: Record<SettingName, Row> = {
  model: { run: 'm-run', agent: 'm-agent', worker: 'm-worker', tree: 'm-tree', default: 'gpt-4o-mini', treeDefault: _ },
  planner: { run: 'json', agent: 'native', worker: NO, tree: NO, default: 'native' },
  maxIterations: { run: 5, agent: 6, worker: NO, tree: NO, default: 20 },
  maxTokens: { run: 1_000, agent: 2_000, worker: NO, tree: 3_000, default: _ },
  maxCostUsd: { run: 0.5, agent: 1, worker: NO, tree: 2, default: _, treeDefault: 10 },
  timeoutSeconds: { run: 60, agent: 120, worker: NO, tree: 180, default: _, treeDefault: 3_600 },
  maxContextTokens: { run: 8_000, agent: 16_000, worker: NO, tree: NO, default: _ },
  maxOutputTokens: { run: 100, agent: 200, worker: NO, tree: NO, default: 4_096 },
  maxHistoryEvents: { run: 100, agent: 200, worker: NO, tree: NO, default: 2_000 },
  circuitBreaker: { run: 0, agent: 5, worker: NO, tree: NO, default: 3 },
  toolCallText: { run: 'off', agent: 'recover', worker: NO, tree: NO, default: 'recover' },
  modelTimeoutSeconds: { run: 30, agent: 60, worker: 90, tree: NO, default: 600 },
  heartbeatSeconds: { run: NO, agent: NO, worker: 5, tree: NO, default: 10 },
  modelAttempts: { run: 1, agent: 2, worker: 3, tree: NO, default: 8 },
  modelRpm: { run: NO, agent: 60, worker: 120, tree: NO, default: _ },
  modelTpm: { run: NO, agent: NO, worker: 10_000, tree: NO, default: _ },
  localModelCalls: { run: false, agent: true, worker: NO, tree: NO, default: false },
  maxParallelTools: { run: 2, agent: 4, worker: 8, tree: NO, default: 16 },
  agents: { run: ['billing'], agent: ['crm'], worker: NO, tree: NO, default: _ },
  handoffs: { run: ['billing'], agent: ['crm'], worker: NO, tree: NO, default: _ },
  maxAgentDepth: { run: 2, agent: 4, worker: 5, tree: NO, default: 3 },
  toolsToApprove: { run: ['a'], agent: ['b', 'a'], worker: NO, tree: NO, default: _ },
  effectsToApprove: { run: ['write'], agent: ['idempotent', 'write'], worker: NO, tree: NO, default: _ },
  dryRun: { run: true, agent: NO, worker: NO, tree: NO, default: false },
  onFailure: { run: 'undo', agent: 'keep', worker: NO, tree: NO, default: 'keep' },
  approvalTimeoutSeconds: { run: 10, agent: 20, worker: NO, tree: NO, tool: 30, default: _ },
  onApprovalTimeout: { run: 'approve', agent: 'deny', worker: NO, tree: NO, tool: 'approve', default: 'deny' },
  fourEyes: { run: NO, agent: true, worker: NO, tree: NO, default: false },
  answerTimeoutSeconds: { run: 10, agent: 20, worker: NO, tree: NO, default: _ },
  conversation: { run: true, agent: false, worker: NO, tree: NO, default: false },
  idleTimeoutSeconds: { run: 10, agent: 20, worker: NO, tree: NO, default: 604_800 },
  outputRepairs: { run: 0, agent: 1, worker: NO, tree: NO, default: 2 },
  priority: { run: 1, agent: 2, worker: NO, tree: 4, default: _ },
  fairnessKey: { run: 'a', agent: 'b', worker: NO, tree: 'c', default: _ },
  fairnessWeight: { run: 0.5, agent: 2, worker: NO, tree: 3, default: _ },
  webhooks: {
    run: ['http://r'],
    agent: ['http://a', 'http://r'],
    worker: ['http://w'],
    tree: ['http://t'],
    default: _,
  },
  maxDepth: { run: NO, agent: NO, worker: NO, tree: 2, default: _, treeDefault: 5 },
  maxGoals: { run: NO, agent: NO, worker: NO, tree: 7, default: _, treeDefault: 50 },
  maxParallelGoals: { run: NO, agent: NO, worker: NO, tree: 3, default: _ },
};

const given = (row: Row, layer: 'run' | 'agent' | 'worker' | 'tree' | 'tool') =>
  row[layer] === NO ? undefined : row[layer];
const isUnion = (name: SettingName) => 'merge' in SETTINGS[name];
const one = (name: SettingName, value: unknown) => (value === undefined ? {} : { [name]: value });

describe('resolveRunSettings: run, then agent, then worker, then the default', () => {
  it('the table names every declared setting, and only those', () => {
    expect(Object.keys(TABLE).sort()).toEqual([...SETTING_NAMES].sort());
  });

  it('the table gives a value exactly for the layers each setting declares', () => {
    for (const name of SETTING_NAMES) {
      for (const layer of ['run', 'agent', 'worker', 'tree', 'tool'] as const) {
        expect((TABLE[name][layer] ?? NO) !== NO, `${name} at ${layer}`).toBe(
          (SETTINGS[name].layers as readonly string[]).includes(layer),
        );
      }
    }
  });

  for (const name of SETTING_NAMES.filter((n) => !isUnion(n))) {
    const row = TABLE[name];
    const [run, agent, worker] = [given(row, 'run'), given(row, 'agent'), given(row, 'worker')];
    it(`${name}: each layer in turn`, () => {
      const resolvedWith = (layers: { run?: unknown; agent?: unknown; worker?: unknown }) =>
        (
          resolveRunSettings({
            run: one(name, layers.run),
            agent: one(name, layers.agent),
            worker: one(name, layers.worker),
          }) as Record<string, unknown>
        )[name];
      const runWide = SETTINGS[name].layers.some((l) => l === 'run' || l === 'agent' || l === 'worker');
      if (!runWide) {
        expect(name in resolveRunSettings({})).toBe(false);
        return;
      }
      if (run !== undefined) expect(resolvedWith({ run, agent, worker })).toEqual(run);
      if (agent !== undefined) expect(resolvedWith({ agent, worker })).toEqual(agent);
      if (worker !== undefined) expect(resolvedWith({ worker })).toEqual(worker);
      expect(resolvedWith({})).toEqual(row.default);
    });
  }

  it('webhooks join every layer, each URL once, the run’s first', () => {
    const { run, agent, worker } = TABLE.webhooks;
    const resolved = resolveRunSettings({
      run: { webhooks: run },
      agent: { webhooks: agent },
      worker: { webhooks: worker },
    });
    expect(resolved.webhooks).toEqual(['http://r', 'http://a', 'http://w']);
    expect(resolveRunSettings({}).webhooks).toBeUndefined();
  });

  it('tools to approve join the run’s and the agent’s', () => {
    const resolved = resolveRunSettings({ run: { toolsToApprove: ['a'] }, agent: { toolsToApprove: ['b', 'a'] } });
    expect(resolved.toolsToApprove).toEqual(['a', 'b']);
  });

  it('a value of 0 or false given by the run wins over the agent’s', () => {
    const resolved = resolveRunSettings({
      run: { circuitBreaker: 0, conversation: false },
      agent: { circuitBreaker: 5, conversation: true },
    });
    expect(resolved).toMatchObject({ circuitBreaker: 0, conversation: false });
  });
});

describe('resolveTreeSettings: the tree, then the worker, then the tree’s default', () => {
  for (const name of SETTING_NAMES.filter((n) => (SETTINGS[n].layers as readonly string[]).includes('tree'))) {
    const row = TABLE[name];
    it(`${name}`, () => {
      const tree = given(row, 'tree');
      const worker = given(row, 'worker');
      const treeDefault = 'treeDefault' in row ? row.treeDefault : undefined;
      const resolved = (layers: { tree?: unknown; worker?: unknown }) =>
        (
          resolveTreeSettings({ tree: one(name, layers.tree), worker: one(name, layers.worker) }) as Record<
            string,
            unknown
          >
        )[name];
      if (isUnion(name)) {
        expect(resolved({ tree, worker })).toEqual([...(tree as string[]), ...(worker as string[])]);
      } else {
        expect(resolved({ tree, worker })).toEqual(tree);
        if (worker !== undefined) expect(resolved({ worker })).toEqual(worker);
      }
      expect(resolved({})).toEqual(treeDefault);
    });
  }
});

describe('resolveToolSettings: the run, then its agent, then the tool, then the default', () => {
  for (const name of SETTING_NAMES.filter((n) => (SETTINGS[n].layers as readonly string[]).includes('tool'))) {
    const row = TABLE[name];
    it(`${name}`, () => {
      const [run, agent, tool] = [given(row, 'run'), given(row, 'agent'), given(row, 'tool')];
      const resolved = (layers: { run?: unknown; agent?: unknown; tool?: unknown }) =>
        (
          resolveToolSettings({
            run: one(name, layers.run),
            agent: one(name, layers.agent),
            tool: one(name, layers.tool),
          }) as Record<string, unknown>
        )[name];
      expect(resolved({ run, agent, tool })).toEqual(run);
      expect(resolved({ agent, tool })).toEqual(agent);
      expect(resolved({ tool })).toEqual(tool);
      expect(resolved({})).toEqual(row.default);
    });
  }
});
