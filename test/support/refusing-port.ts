// A loopback port that stays ours and resets every connection. A port probed free and then
// released is no "nowhere" in a parallel run: another suite's agent may bind it and answer
// (the metrics suite once counted an `ok` SendMessage to its unreachable agent that way).
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface RefusingPort {
  port: number;
  close(): Promise<void>;
}

export async function refusingPort(): Promise<RefusingPort> {
  const server = createServer((socket) => socket.resetAndDestroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
