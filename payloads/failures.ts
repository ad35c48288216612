// The failure types of the claim-check codec. Thrown where a payload is encoded: in an activity
// (its result, or a signal it sends) they fail that activity without retries; in a client call
// they reject that call.
import { ApplicationFailure } from '@temporalio/common';

/** A payload over the hard cap (PLANNER_PAYLOAD_MAX_BYTES): no store or retry makes it fit. */
export const PAYLOAD_TOO_LARGE = 'PayloadTooLarge';
/** The blob store refused the write (folder not writable, disk full, bucket unreachable). */
export const BLOB_STORE_WRITE_FAILED = 'BlobStoreWriteFailed';
/** A reference whose blob is missing or does not match its sha256 (decode side). */
export const BLOB_UNREADABLE = 'BlobUnreadable';

export function payloadTooLarge(size: number, maxBytes: number): ApplicationFailure {
  return ApplicationFailure.create({
    type: PAYLOAD_TOO_LARGE,
    message: `a payload of ${size} bytes is over the planner's cap of ${maxBytes} bytes (PLANNER_PAYLOAD_MAX_BYTES); raise the cap or make the agent return less (e.g. a url part instead of the bytes)`,
    nonRetryable: true,
  });
}

export function blobStoreWriteFailed(location: string, err: unknown): ApplicationFailure {
  const why = err instanceof Error ? err.message : String(err);
  return ApplicationFailure.create({
    type: BLOB_STORE_WRITE_FAILED,
    message: `cannot write a large payload to the blob store at ${location} (PLANNER_BLOB_DIR): ${why}`,
    nonRetryable: true,
    cause: err instanceof Error ? err : undefined,
  });
}

export function blobUnreadable(message: string): ApplicationFailure {
  // Retryable: a store that is down, or a blob that is being restored, can come back.
  return ApplicationFailure.create({ type: BLOB_UNREADABLE, message, nonRetryable: false });
}
