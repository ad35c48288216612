// pino for the planner's own logs, also fed the Temporal runtime's (SDK and Core) logs.
import { DefaultLogger, Runtime, makeTelemetryFilterString, type LogLevel } from '@temporalio/worker';
import pino, { type Logger } from 'pino';
import { redactPaths } from '../a2a';

export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'a2a-planner' }, redact: { paths: redactPaths, censor: '[redacted]' } });
}

const PINO_LEVEL: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = {
  TRACE: 'trace',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

/**
 * Installs the Temporal runtime with logs bridged to pino and, given `metricsAddress` (host:port,
 * PLANNER_METRICS_ADDRESS), the SDK's Prometheus metrics at http://<address>/metrics. Only the
 * first call in a process counts.
 */
export function installRuntime(logger: Logger, opts: { metricsAddress?: string } = {}): void {
  try {
    Runtime.install({
      logger: new DefaultLogger('INFO', (entry) => logger[PINO_LEVEL[entry.level]]({ ...entry.meta }, entry.message)),
      telemetryOptions: {
        logging: { forward: {}, filter: makeTelemetryFilterString({ core: 'WARN' }) },
        ...(opts.metricsAddress ? { metrics: { prometheus: { bindAddress: opts.metricsAddress }, globalTags: { service: 'a2a-planner-worker' } } } : {}),
      },
    });
  } catch {
    // Already installed (e.g. a second worker in the same test process): keep the first.
  }
}
