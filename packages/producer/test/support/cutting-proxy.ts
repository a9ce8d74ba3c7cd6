import { connect, createServer, Server, Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** A TCP proxy that cuts the first connection once the client has sent `cutAfterBytes`; later ones pass. */
export interface CuttingProxy {
  url: string;
  /** Connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

export async function startCuttingProxy(upstreamPort: number, cutAfterBytes: number): Promise<CuttingProxy> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server: Server = createServer((client) => {
    accepted++;
    const upstream = connect({ host: '127.0.0.1', port: upstreamPort });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => sockets.delete(socket));
    }
    let forwarded = 0;
    const cutting = accepted === 1;
    client.on('data', (chunk: Buffer) => {
      if (cutting && forwarded + chunk.length >= cutAfterBytes) {
        upstream.write(chunk.subarray(0, cutAfterBytes - forwarded));
        upstream.destroy();
        client.destroy();
        return;
      }
      forwarded += chunk.length;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    upstream.on('close', () => client.destroy());
    client.on('close', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `mmmq://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: () => accepted,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
