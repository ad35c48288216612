// A loopback port that stays ours and resets every connection. A port probed free and then
// released is no "nowhere" in a parallel run: another suite's server may bind it and answer.
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
