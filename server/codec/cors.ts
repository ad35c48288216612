// CORS for the codec endpoint: the Temporal UI runs in a browser on its own origin and calls the
// codec with fetch(), sending Content-Type: application/json, X-Namespace and (when the UI passes
// its access token) Authorization, so the browser asks first with an OPTIONS preflight. Only the
// configured origins are answered; a request from any other origin is refused outright (a browser
// would hide the answer anyway, but refusing keeps the endpoint from doing the work).
import type { RequestHandler } from 'express';
import { ApiError } from '../errors';

const ALLOWED_HEADERS = 'Authorization, Content-Type, X-Namespace';
/** How long a browser may reuse a preflight's answer (Chromium caps it at 2 h). */
const PREFLIGHT_MAX_AGE_S = 600;

export function codecCors(origins: readonly string[]): RequestHandler {
  const allowed = new Set(origins);
  return (req, res, next) => {
    res.vary('Origin');
    const origin = req.get('origin');
    if (origin !== undefined) {
      if (!allowed.has(origin)) {
        return next(new ApiError(403, 'forbidden', `the codec answers the origins ${[...allowed].join(', ')} (PLANNER_CODEC_ORIGINS), not ${JSON.stringify(origin)}`));
      }
      res.set('Access-Control-Allow-Origin', origin);
      // The UI's TEMPORAL_CODEC_INCLUDE_CREDENTIALS sends cookies too; safe with an exact origin.
      res.set('Access-Control-Allow-Credentials', 'true');
    }
    if (req.method !== 'OPTIONS') return next();
    res.set('Access-Control-Allow-Methods', 'POST, OPTIONS');
    res.set('Access-Control-Allow-Headers', ALLOWED_HEADERS);
    res.set('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_S));
    res.status(204).end();
  };
}
