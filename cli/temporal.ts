// The CLI's connection to Temporal, configured like the worker (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE,
// PLANNER_TASK_QUEUE, ...) and with the planner's data converter, so it reads what the workers wrote.
import { Client, type Connection } from '@temporalio/client';
import { payloadSettings, plannerDataConverter } from '../payloads/data-converter';
import { loadConfig, type PlannerConfig } from '../runtime/config';
import { connectClient, temporalTarget, temporalUnavailable, type TemporalTarget } from '../runtime/temporal-connection';
import { tracingClientInterceptors } from '../runtime/temporal-tracing';
import { startTracing } from '../runtime/tracing';
import { CliFailure, UsageError } from './errors';

/** The planner's configuration; a bad variable is a usage error (exit 2) that names it. */
export function configOrUsage(): PlannerConfig {
  try {
    return loadConfig();
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/** Runs `fn` with a client on the configured server; the connection is closed afterwards. */
export async function withClient<T>(fn: (client: Client, config: PlannerConfig) => Promise<T>): Promise<T> {
  const config = configOrUsage();
  let connection: Connection;
  let target: TemporalTarget;
  try {
    target = temporalTarget(config);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  try {
    connection = await connectClient(target, { connectTimeout: '5s' });
  } catch (e) {
    throw new CliFailure(`cannot reach Temporal at ${target.describe} (TEMPORAL_ADDRESS, TEMPORAL_PROFILE): ${(e as Error).message}`);
  }
  // OTEL_* on (docs/tracing.md): a plan started here is the root of its trace.
  const tracing = startTracing(process.env, 'a2a-planner-cli');
  const interceptors = tracingClientInterceptors(tracing);
  try {
    const dataConverter = plannerDataConverter(payloadSettings(config)); // reads large payloads back from the blob store
    return await fn(new Client({ connection, namespace: target.namespace, dataConverter, ...(interceptors ? { interceptors } : {}) }), config);
  } catch (e) {
    // Temporal (or a service or database behind its frontend) down: say so, not a gRPC trace.
    const unavailable = temporalUnavailable(e, target.describe);
    throw unavailable ? new CliFailure(unavailable) : e;
  } finally {
    await connection.close();
    await tracing?.flush();
  }
}
