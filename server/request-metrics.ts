// API requests by route and status, as a counter on the Prometheus endpoint of the process that
// serves them (PLANNER_METRICS_ADDRESS: `planner serve` opens its own; `planner dev` shares its
// workers'). Through the Temporal runtime's metric meter, the one exporter the workers use already,
// not a second registry. The route is Express's pattern (/v1/plans/:planId), never the path, so the
// label stays bounded; a request refused before any route matched (a 401, 404 or 413) is "other".
import type { RequestHandler } from 'express';
import type { MetricMeter } from '@temporalio/common';

export const API_REQUESTS = 'planner_api_requests';

export function countRequests(meter: MetricMeter): RequestHandler {
  const requests = meter.createCounter(API_REQUESTS, undefined, 'API requests served, by method, route pattern and status');
  return (req, res, next) => {
    res.on('finish', () => {
      const route = (req.route as { path?: unknown } | undefined)?.path;
      requests.add(1, { method: req.method, route: typeof route === 'string' ? withMount(req.originalUrl, route) : 'other', status: String(res.statusCode) });
    });
    next();
  };
}

/**
 * The route's pattern under its router's mount (/v1): by "finish" an error may have left the router
 * and req.baseUrl is reset, so the mount is read off the path, one segment per segment of the pattern.
 */
function withMount(originalUrl: string, pattern: string): string {
  if (pattern.includes('*')) return pattern;
  const path = originalUrl.split('?')[0]!.split('/').filter(Boolean);
  const own = pattern.split('/').filter(Boolean).length;
  const mount = path.slice(0, Math.max(0, path.length - own));
  return `${mount.length ? `/${mount.join('/')}` : ''}${pattern}`;
}
