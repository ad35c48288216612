// The SDK's gRPC retry (makeGrpcRetryInterceptor) backs off with a timer that Connection.close()
// does not clear. A retry whose timer fires after the close calls createCall on the closed channel,
// which throws "Channel has been shut down" inside that timer, off any awaited path: an uncaught
// exception that kills the process (a CLI command, a worker shutting down, a test file; a known
// SDK behaviour, reported by other projects too). A closed connection here ends such a retry as a
// CANCELLED call instead, and retries nothing once it is closing.
import { InterceptingCall, Metadata, status, type Interceptor } from '@grpc/grpc-js';
import { defaultGrpcRetryOptions, makeGrpcRetryInterceptor, type Connection } from '@temporalio/client';

type InterceptingCallInterface = ConstructorParameters<typeof InterceptingCall>[0];

export interface ClosedConnectionGuard {
  /** The SDK's default retry, made to stop at the close, and the guard below it. */
  interceptors: Interceptor[];
  /** Wraps the connection's close: from then on nothing is retried or sent. */
  guard(connection: Connection): Connection;
}

export function closedConnectionGuard(): ClosedConnectionGuard {
  let closed = false;
  const retry = defaultGrpcRetryOptions();
  const retrying = makeGrpcRetryInterceptor({ ...retry, retryableDecider: (attempt, s) => !closed && retry.retryableDecider(attempt, s) });
  // Innermost: every attempt (the first and each retry) passes here before reaching the channel.
  const refuseWhenClosed: Interceptor = (options, nextCall) => {
    if (!closed) return new InterceptingCall(nextCall(options));
    return new InterceptingCall(closedCall());
  };
  return {
    interceptors: [retrying, refuseWhenClosed],
    guard(connection) {
      const close = connection.close.bind(connection);
      connection.close = async () => {
        closed = true;
        await close();
      };
      return connection;
    },
  };
}

/** A call that never reaches the channel: it ends CANCELLED as soon as it starts. */
function closedCall(): InterceptingCallInterface {
  return {
    start: (_metadata, listener) => {
      // No message, then the status: the SDK's retry forwards "the last message" before a final
      // status, and calls that hook as if a message had come (it throws otherwise).
      setImmediate(() => {
        listener?.onReceiveMessage?.(undefined);
        listener?.onReceiveStatus?.({ code: status.CANCELLED, details: 'the Temporal connection was closed', metadata: new Metadata() });
      });
    },
    cancelWithStatus: () => undefined,
    getPeer: () => '',
    sendMessageWithContext: () => undefined,
    sendMessage: () => undefined,
    startRead: () => undefined,
    halfClose: () => undefined,
    getAuthContext: () => null,
  };
}
