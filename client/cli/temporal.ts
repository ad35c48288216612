// The CLI's connection to Temporal, configured like the worker (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE,
// PLANNER_TASK_QUEUE, ...) and with the planner's data converter, so it reads what the workers wrote.
import { Client, Connection } from '@temporalio/client';
import { payloadSettings, plannerDataConverter } from '../../payloads/data-converter';
import { loadConfig, type PlannerConfig } from '../../worker/config';
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
  try {
    connection = await Connection.connect({ address: config.TEMPORAL_ADDRESS, connectTimeout: '5s' });
  } catch (e) {
    throw new CliFailure(`cannot reach Temporal at ${config.TEMPORAL_ADDRESS} (TEMPORAL_ADDRESS): ${(e as Error).message}`);
  }
  try {
    const dataConverter = plannerDataConverter(payloadSettings(config)); // reads large payloads back from the blob store
    return await fn(new Client({ connection, namespace: config.TEMPORAL_NAMESPACE, dataConverter }), config);
  } finally {
    await connection.close();
  }
}
