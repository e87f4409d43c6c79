import * as path from 'node:path';
import type { DataConverter } from '@temporalio/common';
import type { BlobStore } from './blob-store';
import { waveloopCodecs } from './codecs';
import type { EncryptionKeys } from './encryption-keys';

/**
 * The data converter of waveloop's workers and clients (see `waveloopCodecs`). Omit `store` and
 * payloads over 2 MB after compression fail as Temporal's limits say; omit `keys` and nothing is
 * encrypted. With a key, failures' messages and stack traces travel as an encrypted payload too
 * (`encoded-failures.cjs`): a tool's error may quote what it read.
 */
export function waveloopDataConverter(store?: BlobStore, keys?: EncryptionKeys): DataConverter {
  return {
    payloadCodecs: waveloopCodecs(store, keys),
    ...(keys?.currentId ? { failureConverterPath: ENCODED_FAILURES_PATH } : {}),
  };
}

/**
 * The failure converter that encodes messages and stack traces (for a worker's `bundleWorkflowCode`,
 * when given a bundle). The build copies `encoded-failures.cjs` beside this module's output.
 */
export const ENCODED_FAILURES_PATH = path.join(__dirname, 'encoded-failures.cjs');
