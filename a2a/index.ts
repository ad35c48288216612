/**
 * A2A v1.0 client library: zod wire schemas, JSON-RPC and HTTP+JSON bindings over undici, an
 * SSE reader, agent-card resolution, typed errors and per-agent credentials; to an agent that
 * offers only v0.3 it speaks v0.3 through one mapping at the edge (compat/v0_3/).
 * Plain library: nothing here knows about Temporal.
 */
export * from './schema';
export * from './types';
export * from './call-context';
export * from './errors';
export * from './errors/decode';
export * from './errors/transport';
export * from './credentials';
export * from './remote-text';
export * from './client';
export { agentCardUrl, selectInterface, AGENT_CARD_PATH, A2A_PROTOCOL_VERSION } from './card';
export { parseAgentCard } from './compat/v0_3/card';
export { parsePushNotification } from './compat/v0_3/push';
export { HttpTransport, DEFAULT_TIMEOUTS, DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_MAX_CARD_BYTES, DEFAULT_MAX_STREAM_BYTES, type Timeouts, type HttpTransportOptions } from './http';
export { readSse, SseReadError, DEFAULT_MAX_FRAME_BYTES, type SseEvent, type SseReadOptions, type SseReadErrorKind } from './sse';
export { parseWith, explainIssues, describeIssues, formatPath, describeProblem, type SchemaProblem, type ParseResult } from './validate';
export { OutboundPolicy, OutboundRefusal, OutboundPolicyConfigError, outboundPolicy, AGENT_ALLOW_ENV, type OutboundPolicyOptions } from './outbound-policy';
