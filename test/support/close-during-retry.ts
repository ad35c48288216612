// Run as a child process by test/temporal-connection.test.ts: a client connected through a TCP relay
// to the dev server; the relay then drops every socket and refuses new ones, so a call fails
// UNAVAILABLE and the SDK's retry backs off on a timer; the connection is closed during that backoff.
// Exits 0 when the process lived through it (the call settled, nothing thrown in a timer).
import { createServer, connect, type Socket } from 'node:net';
import { connectClient, temporalTarget } from '../../runtime/temporal-connection';

async function main(): Promise<void> {
  const [host, port] = process.argv[2]!.split(':');
  const sockets = new Set<Socket>();
  const relay = createServer((inbound) => {
    const outbound = connect(Number(port), host);
    for (const s of [inbound, outbound]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
    inbound.pipe(outbound).pipe(inbound);
  });
  await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
  const address = `127.0.0.1:${(relay.address() as { port: number }).port}`;
  const connection = await connectClient(temporalTarget({ TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: 'default' }, {}));
  relay.close();
  for (const s of sockets) s.destroy();
  const call = connection.workflowService.getSystemInfo({}).then(() => 'answered', (e: Error) => `failed: ${e.message}`);
  await new Promise((r) => setTimeout(r, 300)); // a retry is waiting on its backoff timer
  await connection.close();
  await new Promise((r) => setTimeout(r, 6000)); // longer than any backoff the retry had left
  process.stdout.write(`call ${await Promise.race([call, Promise.resolve('pending')])}\n`);
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`${String(e)}\n`);
    process.exit(1);
  },
);
