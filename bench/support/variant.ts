import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';

const ROOT = path.join(__dirname, '..', '..', '..');

/** One edit of a workflow source file: `find` must occur exactly once. */
export interface Edit {
  file: string;
  find: string;
  replace: string;
}

/**
 * Prototypes of changes to `src/workflows` that the benchmarks measure before anyone makes them:
 * each is a list of edits applied to a copy of the workflow sources (the rest of `src` linked in).
 * The workflow sources are never changed here.
 */
export const VARIANTS: Record<string, { title: string; edits: Edit[] }> = {
  since: {
    title: 'the model call carries the messages added since the previous call (no transcript query when the worker holds the rest)',
    edits: [
      { file: 'agent-loop.ts', find: '    const request = (iteration: number', replace: '    let sentUpTo = 0;\n    const request = (iteration: number' },
      {
        file: 'agent-loop.ts',
        find: '      messageCount: messages.length,\n',
        replace: '      messageCount: messages.length,\n      ...(sentUpTo > 0 ? { since: { from: sentUpTo, messages: messages.slice(sentUpTo) } } : {}),\n',
      },
      { file: 'agent-loop.ts', find: '      this.publish();\n      messages.push(reply.message);\n', replace: '      this.publish();\n      messages.push(reply.message);\n      sentUpTo = messages.length;\n' },
    ],
  },
  statusOnly: {
    title: 'search attributes upserted when the status changes, not every iteration',
    edits: [
      {
        file: 'agent-loop.ts',
        find: 'const current = `${status}/${iteration}/${usage.totalTokens}`;',
        replace: "const current = status === 'running' && this.published.startsWith('running/') ? this.published : `${status}/${iteration}/${usage.totalTokens}`;",
      },
    ],
  },
  local: {
    title: 'tools marked localActivity run as local activities',
    edits: [
      { file: 'wave.ts', find: "import { ActivityFailure, ApplicationFailure, isCancellation, proxyActivities } from '@temporalio/workflow';", replace: "import { ActivityFailure, ApplicationFailure, isCancellation, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';" },
      {
        file: 'wave.ts',
        find: "const { runTool } = proxyActivities<ReturnType<typeof createActivities>>({ startToCloseTimeout: '1 minute' });",
        replace:
          "const { runTool } = proxyActivities<ReturnType<typeof createActivities>>({ startToCloseTimeout: '1 minute' });\nconst { runTool: runToolLocally } = proxyLocalActivities<ReturnType<typeof createActivities>>({ startToCloseTimeout: '1 minute' });",
      },
      { file: 'wave.ts', find: '    const output = await runTool.executeWithOptions(', replace: '    const output = await (tool.localActivity ? (runToolLocally as typeof runTool) : runTool).executeWithOptions(' },
    ],
  },
};

/**
 * Bundles the workflows with the named variants applied. Throws, saying which edit no longer
 * applies, when the workflow sources have moved on (the scenario then reports the variant as not run).
 */
export async function variantBundle(names: string[]): Promise<WorkflowBundleWithSourceMap> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'waveloop-variant-'));
  const src = path.join(dir, 'src');
  fs.mkdirSync(path.join(src, 'workflows'), { recursive: true });
  for (const entry of fs.readdirSync(path.join(ROOT, 'src'))) {
    if (entry !== 'workflows') fs.symlinkSync(path.join(ROOT, 'src', entry), path.join(src, entry));
  }
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  for (const file of fs.readdirSync(path.join(ROOT, 'src', 'workflows'))) {
    fs.copyFileSync(path.join(ROOT, 'src', 'workflows', file), path.join(src, 'workflows', file));
  }
  for (const name of names) {
    for (const edit of VARIANTS[name].edits) {
      const file = path.join(src, 'workflows', edit.file);
      const text = fs.readFileSync(file, 'utf8');
      if (text.split(edit.find).length !== 2) throw new Error(`variant "${name}": src/workflows/${edit.file} no longer holds ${JSON.stringify(edit.find.slice(0, 60))}`);
      fs.writeFileSync(file, text.replace(edit.find, edit.replace));
    }
  }
  try {
    return await bundleWorkflowCode({
      workflowsPath: path.join(src, 'workflows', 'index.ts'),
      logger: { log: () => undefined, trace: () => undefined, debug: () => undefined, info: () => undefined, warn: () => undefined, error: console.error },
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
