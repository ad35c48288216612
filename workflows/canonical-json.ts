// JSON that does not depend on the order of object keys, for telling two values apart by content:
// an API request body's idempotency hash (server/api/plans.ts) and a step's report as the plan
// received it (workflows/delegated-task/publish.ts). Undefined fields are left out, as JSON leaves
// them out on the wire, so a value compares equal to itself after a trip through a payload.
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const entries = Object.keys(v)
      .sort()
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}
