// pino for the planner's own logs, also fed the Temporal runtime's (SDK and Core) logs. JSON lines
// for collectors; pino-pretty for a person at a terminal (PLANNER_LOG_FORMAT decides, else the TTY).
import { DefaultLogger, Runtime, makeTelemetryFilterString, type LogLevel } from '@temporalio/worker';
import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';
import { redactPaths } from '../a2a';
import type { LogFormat } from './config';

/** The configured format, else pretty when stdout is a terminal and JSON when it is a pipe or a file. */
export function logFormatFor(configured: LogFormat | undefined, stdout: { isTTY?: boolean } = process.stdout): LogFormat {
  return configured ?? (stdout.isTTY ? 'pretty' : 'json');
}

export function createLogger(level: string, format: LogFormat = 'json'): Logger {
  const options = { level, base: { service: 'a2a-planner' }, redact: { paths: redactPaths, censor: '[redacted]' } };
  if (format === 'json') return pino(options);
  // A stream in this thread, written synchronously: nothing is lost when the process exits at once.
  return pino(
    options,
    pretty({ sync: true, colorize: Boolean(process.stdout.isTTY), translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service', singleLine: true }),
  );
}

const PINO_LEVEL: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = {
  TRACE: 'trace',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

/**
 * Every worker's start-up and shutdown chatter, expected in this planner (the watch worker has no
 * workflows by design): logged at debug, so that info shows what the planner itself does.
 */
const ROUTINE_SDK_MESSAGES = new Set([
  'Worker state changed',
  'No Nexus services registered, not polling for Nexus tasks',
  'No workflows registered, not polling for workflow tasks',
]);

/**
 * Installs the Temporal runtime with logs bridged to pino and, given `metricsAddress` (host:port,
 * PLANNER_METRICS_ADDRESS), the SDK's Prometheus metrics at http://<address>/metrics. Only the
 * first call in a process counts.
 */
export function installRuntime(logger: Logger, opts: { metricsAddress?: string; service?: string } = {}): void {
  try {
    Runtime.install({
      logger: new DefaultLogger('INFO', (entry) => {
        const level = ROUTINE_SDK_MESSAGES.has(entry.message) ? 'debug' : PINO_LEVEL[entry.level];
        logger[level]({ ...entry.meta }, entry.message);
      }),
      telemetryOptions: {
        logging: { forward: {}, filter: makeTelemetryFilterString({ core: 'WARN' }) },
        ...(opts.metricsAddress ? { metrics: { prometheus: { bindAddress: opts.metricsAddress }, globalTags: { service: opts.service ?? 'a2a-planner-worker' } } } : {}),
      },
    });
  } catch {
    // Already installed (e.g. a second worker in the same test process): keep the first.
  }
}
