// The floor's worker, in a process of its own like the planner's (bench/lib/env.ts startFloorWorker).
import { Client, Connection } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { connectWorker, temporalTarget } from '../../runtime/temporal-connection';
import { createFloorActivities } from './activities';

async function main(): Promise<void> {
  const { FLOOR_TEMPORAL_ADDRESS: address, FLOOR_NAMESPACE: namespace, FLOOR_ALERT_URL: alertUrl, FLOOR_TASK_QUEUE: taskQueue } = process.env;
  if (!address || !namespace || !alertUrl || !taskQueue) throw new Error('FLOOR_TEMPORAL_ADDRESS, FLOOR_NAMESPACE, FLOOR_ALERT_URL and FLOOR_TASK_QUEUE are required');
  const connection = await connectWorker(temporalTarget({ TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace }, {}));
  // The client a step's question reports to its plan with (the planner's worker has one too).
  const client = new Client({ connection: await Connection.connect({ address }), namespace });
  const worker = await Worker.create({ connection, namespace, taskQueue, workflowsPath: require.resolve('./workflow'), activities: createFloorActivities(alertUrl, client) });
  process.once('SIGTERM', () => worker.shutdown());
  console.log('floor worker running');
  await worker.run();
  await client.connection.close();
  await connection.close();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
