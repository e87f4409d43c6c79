/** How the CLI tells a person that no worker serves a task queue, and how to start one. */

/**
 * What to say when no worker polls `taskQueue`: `consequence` (e.g. "run X starts once one does"),
 * and how to start one (with WAVELOOP_TASK_QUEUE when the queue is not the configured one).
 */
export function noWorkerNote(taskQueue: string, configuredQueue: string, consequence: string): string {
  return `No worker polls task queue "${taskQueue}", so ${consequence}: start one with ${startWorker(taskQueue, configuredQueue)}.`;
}

/**
 * The commands that start a worker on `taskQueue`: `waveloop worker` (or `waveloop dev`), with
 * WAVELOOP_TASK_QUEUE unless the queue is `configuredQueue` (unknown: always).
 */
export function startWorker(taskQueue: string, configuredQueue?: string): string {
  const env = taskQueue === configuredQueue ? '' : `WAVELOOP_TASK_QUEUE=${taskQueue} `;
  return `\`${env}waveloop worker\` (or \`${env}waveloop dev\`)`;
}
