/**
 * What a v0.3 binding does: put a v0.3 request on the wire and hand back the unvalidated v0.3
 * result, or open a stream of unvalidated v0.3 events. Both bindings speak in v0.3's JSON-RPC
 * object model (`kind`-tagged, lower-case states): the HTTP+JSON binding turns its proto-JSON
 * shapes into those (rest.ts), so the one lift to v1.0 (binding.ts, to-v1.ts) serves both.
 */
import type { ErrorContext } from '../../call-context';
import type { Binding, WireCallOptions, WireStreamOptions } from '../../types';
import type { V03Method, V03StreamMethod } from './to-v0_3';

/** An open stream: its events, and a release for when nobody will read them. */
export interface V03Stream {
  events: AsyncGenerator<unknown, void, undefined>;
  /** Drops the connection; safe to call after the events ran out. */
  release(): void;
}

export interface V03Wire {
  readonly binding: Binding;
  readonly url: string;
  call(method: V03Method, params: Record<string, unknown>, ctx: ErrorContext, o: WireCallOptions): Promise<unknown>;
  /** Resolves once the agent has answered with an event stream (its headers), before any event. */
  open(method: V03StreamMethod, params: Record<string, unknown>, ctx: ErrorContext, o: WireStreamOptions): Promise<V03Stream>;
}

/**
 * Drops a stream's body that may never have been read. A listener first: undici's body emits an
 * abort error when destroyed unread, which would otherwise be an unhandled 'error' event.
 */
export function dropBody(body: { readonly destroyed: boolean; destroy(): void; on(event: 'error', f: () => void): unknown }): void {
  if (body.destroyed) return;
  body.on('error', () => undefined);
  body.destroy();
}
