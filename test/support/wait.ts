// Polling helpers for assertions on things that happen in other processes.
export async function eventually<T>(
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  what: string,
  timeoutMs = 20_000,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${withCauses(lastError)}` : ''}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** An error and its causes on one line: a client's "Failed to query Workflow" hides the gRPC status in its cause. */
function withCauses(err: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 5; depth++) {
    parts.push(String(e));
    e = e instanceof Error ? e.cause : undefined;
  }
  return parts.join(' <- caused by ');
}
