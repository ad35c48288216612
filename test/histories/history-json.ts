// Temporal history <-> the JSON form of `temporal workflow show -o json` and the SDK's historyToJSON.
//
// Why not @temporalio/common's historyToJSON/historyFromJSON: in this install npm nests a separate
// protobufjs 8 under @temporalio/common, /proto and /worker (the root copy is 7, for
// @a2a-js/sdk's gRPC), and protojson from common's copy rejects the message types built by
// proto's copy ("type must be a Type"). Using protojson from the copy that built the types avoids it.
import { dirname } from 'node:path';
import * as proto from '@temporalio/proto';
import { patchProtobufRoot } from '@temporalio/proto/lib/patch-protobuf-root';

type History = proto.temporal.api.history.v1.IHistory;
interface ProtoJson {
  toJson(type: unknown, message: unknown): unknown;
  fromJson(type: unknown, json: unknown, opts: { ignoreUnknownFields: boolean }): unknown;
}

const protoDir = dirname(require.resolve('@temporalio/proto/package.json'));
// eslint-disable-next-line @typescript-eslint/no-require-imports
const protojson = require(require.resolve('protobufjs/ext/protojson', { paths: [protoDir] })) as ProtoJson;
const historyType = (patchProtobufRoot(proto) as unknown as { lookupType(name: string): unknown }).lookupType('temporal.api.history.v1.History');

/** The history as canonical proto3 JSON (an object with `events`), as `temporal workflow show -o json` writes it. */
export function historyToJson(history: History): { events: unknown[] } {
  return protojson.toJson(historyType, proto.temporal.api.history.v1.History.fromObject(history)) as { events: unknown[] };
}

/** A History that Worker.runReplayHistory accepts, from that JSON; unknown fields (a newer server) are ignored. */
export function historyFromJson(json: unknown): History {
  if (typeof json !== 'object' || json === null || !Array.isArray((json as { events?: unknown }).events)) {
    throw new TypeError('not a Temporal history: expected an object with an array of events');
  }
  return protojson.fromJson(historyType, json, { ignoreUnknownFields: true }) as History;
}
