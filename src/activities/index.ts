import type OpenAI from 'openai';
import type { ChatMessage } from '../common/contract';
import { createCallModel } from './model';
import type { Registry } from './registry';
import { createResolveRun } from './resolve-run';
import { createRunTool } from './tools';

export interface ActivityDeps {
  registry: Registry;
  openai: OpenAI;
  defaultModel: string;
  readTranscript(workflowId: string, runId: string, count: number): Promise<ChatMessage[]>;
  now?: () => Date;
}

/**
 * All activities of waveloop, with their dependencies injected (the worker builds them once;
 * tests build them with fakes). Workflows import only the type of this function's result.
 */
export function createActivities(deps: ActivityDeps) {
  return {
    resolveRun: createResolveRun({ registry: deps.registry, defaultModel: deps.defaultModel, now: deps.now ?? (() => new Date()) }),
    callModel: createCallModel(deps),
    runTool: createRunTool(deps),
  };
}

export { Registry } from './registry';
