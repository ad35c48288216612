// A quiet A2A stream carries an SSE comment frame (`: keep-alive`) after each PLANNER_SSE_KEEPALIVE_MS
// of silence, so that clients with a read timeout (the Python SDK's default: 5 s) and proxies that
// cut idle connections keep it open, e.g. through a long AUTH_REQUIRED. @a2a-js/sdk's transports
// write the stream; this wraps the response they write to rather than copying them: they flush the
// headers once the first event is there (res.flushHeaders, only for text/event-stream), which is
// when the wait starts, and each later write starts it again. It stops when the response ends or
// the caller leaves. SSE clients skip comment lines.
import type { RequestHandler } from 'express';

export const KEEP_ALIVE_FRAME = ': keep-alive\n\n';

export function sseKeepAlive(ms: number): RequestHandler {
  return (_req, res, next) => {
    let timer: NodeJS.Timeout | undefined;
    let over = false;
    const stop = (): void => {
      over = true;
      clearTimeout(timer);
    };
    res.once('close', stop).once('finish', stop);
    const rearm = (): void => {
      clearTimeout(timer);
      if (over || res.writableEnded) return;
      timer = setTimeout(() => res.write(KEEP_ALIVE_FRAME), ms);
      timer.unref();
    };
    const flushHeaders = res.flushHeaders.bind(res);
    res.flushHeaders = () => {
      flushHeaders();
      if (!/^text\/event-stream/i.test(String(res.getHeader('content-type') ?? ''))) return;
      const write = res.write.bind(res) as (...args: unknown[]) => boolean;
      res.write = ((...args: unknown[]) => {
        const ok = write(...args);
        rearm();
        return ok;
      }) as typeof res.write;
      rearm();
    };
    next();
  };
}
