// The planner's data converter: the claim-check codec over the configured blob store. Every
// Temporal client and worker of the planner must use it (worker/workers.ts, the CLI, the push
// receiver, the test harness), or it will either put large payloads into history (and fail) or
// fail to read the references the others wrote.
import { resolve } from 'node:path';
import type { DataConverter } from '@temporalio/common';
import type { BlobStore } from './blob-store';
import { ClaimCheckCodec, type ClaimCheckOptions } from './claim-check-codec';
import { FolderBlobStore } from './folder-blob-store';

export interface PayloadSettings extends ClaimCheckOptions {
  /** The folder of the blob store; relative to the working directory. */
  blobDir: string;
}

/** The payload part of the planner's configuration (runtime/config.ts). */
export interface PayloadConfig {
  PLANNER_BLOB_DIR: string;
  PLANNER_PAYLOAD_OFFLOAD_BYTES: number;
  PLANNER_PAYLOAD_MAX_BYTES: number;
}

export function payloadSettings(config: PayloadConfig): PayloadSettings {
  return { blobDir: config.PLANNER_BLOB_DIR, offloadBytes: config.PLANNER_PAYLOAD_OFFLOAD_BYTES, maxBytes: config.PLANNER_PAYLOAD_MAX_BYTES };
}

/** The data converter; `store` replaces the folder (e.g. an S3-compatible BlobStore). */
export function plannerDataConverter(settings: PayloadSettings, store?: BlobStore): DataConverter {
  const blobs = store ?? new FolderBlobStore(resolve(settings.blobDir));
  return { payloadCodecs: [new ClaimCheckCodec(blobs, settings)] };
}
