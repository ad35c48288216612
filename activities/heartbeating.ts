// A short call to an agent may take its whole call timeout (minutes, call-timeout.ts); it
// heartbeats meanwhile, so that a worker that dies in it hands it over in seconds, not minutes.
import { Context } from '@temporalio/activity';

const EVERY_MS = 5_000;

export async function heartbeating<T>(body: () => Promise<T>): Promise<T> {
  const ctx = Context.current();
  ctx.heartbeat();
  const ticker = setInterval(() => ctx.heartbeat(), EVERY_MS);
  try {
    return await body();
  } finally {
    clearInterval(ticker);
  }
}
