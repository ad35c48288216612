// Which protocol a caller speaks, from its A2A-Version header (spec v1.0 §3.6.2): none means 0.3.
// The SDK's compat layer decides the same way, but its JSON-RPC handler takes only the exact
// string "0.3" as legacy while its REST and card handlers take any 0.3.x: the face makes a 0.3.x
// header "0.3" before the SDK sees it, so both bindings and the card agree.
import type { Request } from 'express';

export const A2A_VERSION_HEADER = 'a2a-version';

/** `0.3`, `0.3.0`, ...: the versions the v0.3 face serves. */
const V03 = /^0\.3(\.\d+)?$/;

/** The caller speaks v0.3: no A2A-Version header (or an empty one), or a 0.3.x one. */
export function speaksV03(req: Request): boolean {
  const v = req.get(A2A_VERSION_HEADER)?.trim() ?? '';
  return v === '' || V03.test(v);
}

/** A 0.3.x header as "0.3", the one spelling the SDK's JSON-RPC compat routing takes. */
export function normalizeV03Header(req: Request): void {
  const v = req.get(A2A_VERSION_HEADER)?.trim();
  if (v !== undefined && v !== '0.3' && V03.test(v)) req.headers[A2A_VERSION_HEADER] = '0.3';
}
