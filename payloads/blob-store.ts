// Where the claim-check codec keeps payloads too large for Temporal's history. Keys are the
// lowercase hex sha256 of the content, so a store is content-addressed: writing the same bytes
// twice (a retried activity, a replayed workflow task) is a no-op, and a blob never changes.
//
// One implementation ships: a folder (folder-blob-store.ts), right for the embedded default and
// for workers and clients on one machine. Production with workers on several hosts needs a store
// that all of them (and every client that reads results: CLI, API) reach. An S3-compatible store
// plugs in by implementing this interface, roughly:
//   put: PutObject(Bucket, Key: `${prefix}${key}`, Body: bytes, IfNoneMatch: '*'); a 412 answer
//        (the object exists) is success, since equal keys mean equal content.
//   get: GetObject; NoSuchKey becomes BlobNotFoundError; other errors are thrown as they are.
// Both must be safe to call concurrently. Blobs must be kept at least as long as the namespace's
// history retention (a lifecycle rule of retention + a margin), since histories reference them.

/** A content-addressed store of immutable blobs. */
export interface BlobStore {
  /** Stores `bytes` under `key` (their sha256, hex). Idempotent; resolves once the blob is durable. */
  put(key: string, bytes: Uint8Array): Promise<void>;
  /** The bytes stored under `key`; BlobNotFoundError when there are none. */
  get(key: string): Promise<Uint8Array>;
  /** Where the blobs live, for error messages (a folder, a bucket URL). */
  readonly location: string;
}

export class BlobNotFoundError extends Error {
  override readonly name = 'BlobNotFoundError';
  constructor(
    readonly key: string,
    location: string,
  ) {
    super(
      `blob ${key} is not in the blob store at ${location}: do the workers and this process share one store (PLANNER_BLOB_DIR)?`,
    );
  }
}

export const BLOB_KEY = /^[0-9a-f]{64}$/;
