/**
 * A subscription, which may stay open for days, holds a connection of its own, outside the
 * keep-alive pool: undici's pool looks through every connection it holds on each request, so
 * thousands of parked streams in it made opening them quadratic. Counted at a TCP relay in front
 * of a real @a2a-js/sdk agent: the stream opens a connection even when a pooled one is idle, and
 * that connection closes with the stream instead of going back to the pool.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { HttpTransport, createA2AClient, resolveAgentCard, type A2AClient, type Binding, type StreamResponse, type Task } from '../../a2a';
import { startDeployer, type AgentHandle } from '../agents';
import { userMessage } from './helpers';
import { eventually } from '../support/wait';

/** A TCP relay that counts the connections open through it. */
async function relay(port: number): Promise<{ port: number; open: () => number; opened: () => number; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  let opened = 0;
  const server: Server = createServer((down) => {
    opened++;
    const up = connect(port, '127.0.0.1');
    sockets.add(down);
    const end = (): void => {
      sockets.delete(down);
      down.destroy();
      up.destroy();
    };
    down.on('close', end).on('error', end);
    up.on('close', end).on('error', end);
    down.pipe(up).pipe(down);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    open: () => sockets.size,
    opened: () => opened,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe.each(['JSONRPC', 'HTTP+JSON'] as Binding[])('subscriptions over %s', (binding) => {
  let deployer: AgentHandle;
  let tcp: Awaited<ReturnType<typeof relay>>;
  let transport: HttpTransport;
  let client: A2AClient;

  beforeAll(async () => {
    for (const level of ['error', 'warn', 'info', 'log'] as const) jest.spyOn(console, level).mockImplementation(() => undefined);
    deployer = await startDeployer({ preferredBinding: binding });
    tcp = await relay(deployer.port);
    const card = await resolveAgentCard(deployer.baseUrl);
    const via = `127.0.0.1:${tcp.port}`;
    const relayed = { ...card, supportedInterfaces: card.supportedInterfaces.map((i) => ({ ...i, url: i.url.replace(`127.0.0.1:${deployer.port}`, via) })) };
    transport = new HttpTransport();
    client = createA2AClient(relayed, { transport, preferredBindings: [binding] });
  });

  afterAll(async () => {
    await transport.close();
    await tcp.close();
    await deployer.close();
    jest.restoreAllMocks();
  });

  it('hold a connection of their own, which closes with the stream; requests keep to the pool', async () => {
    const tasks: Task[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await client.sendMessage({ message: userMessage(`deploy build ${i}`) });
      if (!('task' in r)) throw new Error('the deployer answered with a message, not a task');
      tasks.push(r.task);
    }
    // The pooled connections the sends left idle, kept alive.
    const [pooled, openedBefore] = [tcp.open(), tcp.opened()];
    expect(pooled).toBeGreaterThanOrEqual(1);

    const aborts = tasks.map(() => new AbortController());
    const firsts = await Promise.all(
      tasks.map(async (t, i) => {
        for await (const f of client.subscribeToTask({ id: t.id }, { signal: aborts[i]!.signal })) return f;
        return undefined;
      }),
    );
    expect(firsts.map((f: StreamResponse | undefined) => (f && 'task' in f ? f.task.status.state : undefined))).toEqual(tasks.map(() => 'TASK_STATE_AUTH_REQUIRED'));
    // Ended by the reader above (the iterator's return): each stream's connection is closed, not pooled.
    await eventually(() => tcp.open() === pooled, 'the streams\u2019 connections closed', 10_000);
    expect(tcp.opened() - openedBefore).toBe(3); // one per stream: none took an idle pooled one

    // A stream held open while requests go on: the requests reuse the pooled connection.
    const abort = new AbortController();
    const held = client.subscribeToTask({ id: tasks[0]!.id }, { signal: abort.signal })[Symbol.asyncIterator]();
    expect(await held.next()).toMatchObject({ done: false });
    for (const t of tasks) expect((await client.getTask({ id: t.id })).status.state).toBe('TASK_STATE_AUTH_REQUIRED');
    expect([tcp.open(), tcp.opened() - openedBefore]).toEqual([pooled + 1, 4]);
    abort.abort();
    await held.next().catch(() => undefined);
    await eventually(() => tcp.open() === pooled, 'the held stream\u2019s connection closed', 10_000);
  });
});
