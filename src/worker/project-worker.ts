import { NativeConnection, type Worker } from '@temporalio/worker';
import { openAuditStore } from '../audit/open-store';
import type { AuditStore } from '../audit/store';
import { blobStoreIn } from '../payloads/blob-store';
import type { LoadedProject } from '../project/load-project';
import { peopleOf } from '../project/people';
import { openToolset } from '../project/toolset';
import { modelConfigProblem, type WaveloopSettings } from '../settings';
import { connectionFailure, connectionSettings } from '../temporal/connection';
import { createModelClient, createWorker } from './create-worker';
import type { WorkerTuning } from './tuning';

/**
 * The worker of a project: its tools, agents and MCP servers (`openToolset`), the claim-check store
 * and encryption of the data directory, and the model endpoint of the environment. Used by `waveloop
 * worker`, `waveloop dev` and the in-process worker of `waveloop run` and `goal`; a version of a
 * Worker Deployment when `config.deployment` names one. Throws when no model endpoint is configured,
 * or when the toolset cannot be opened. `close` after the worker has stopped: it closes the
 * connection, the MCP servers and the demo database.
 */
export async function createProjectWorker(
  config: WaveloopSettings,
  project: LoadedProject,
  tuning: WorkerTuning = {},
): Promise<{ worker: Worker; close: () => Promise<void> }> {
  const problem = modelConfigProblem(config.model);
  if (problem) throw new Error(problem);
  const toolset = await openToolset(project, { dataDir: config.dataDir });
  let connection: NativeConnection | undefined;
  let audit: AuditStore | undefined;
  try {
    audit = await openAuditStore(config);
    const settings = connectionSettings(config);
    connection = await NativeConnection.connect(settings).catch((err: unknown) => {
      throw connectionFailure(settings, err);
    });
    const worker = await createWorker({
      connection,
      namespace: config.namespace,
      taskQueue: config.taskQueue,
      tools: toolset.tools,
      agents: toolset.agents,
      scorers: project.config.scorers,
      blobStore: blobStoreIn(config.dataDir),
      encryption: config.encryption,
      openai: createModelClient(config.model),
      defaults: config.defaults,
      stream: config.model.stream,
      tuning: { shutdownGraceTime: config.shutdownGraceSeconds * 1000, ...tuning },
      deployment: config.deployment,
      webhooks: config.webhooks,
      people: peopleOf(config, project.config).list(),
      audit,
    });
    const opened = { connection, audit };
    return {
      worker,
      close: async () => {
        await opened.connection.close();
        await opened.audit?.close();
        await toolset.close();
      },
    };
  } catch (err) {
    await connection?.close();
    await audit?.close();
    await toolset.close();
    throw err;
  }
}
