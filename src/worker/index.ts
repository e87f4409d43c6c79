export { createModelClient, createWorker, type WaveloopWorkerOptions } from './create-worker';
export { createProjectWorker } from './project-worker';
export { DEFAULT_WORKER_TUNING, throughputTuning, type WorkerTuning } from './tuning';
export { ENCODED_FAILURES_PATH } from '../payloads/data-converter';
export type { WorkerDeployment } from '../settings';
