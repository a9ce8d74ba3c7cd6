import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

/**
 * A TCP proxy in front of the broker that, while `dropping` is on, forwards every request but throws the
 * answers away: the broker stores the message and the client times out — the textbook ambiguous publish.
 */
export interface ResponseDroppingProxy {
  url: string;
  dropping: boolean;
  /** Answers thrown away so far. */
  dropped(): number;
  close(): Promise<void>;
}

export async function startResponseDroppingProxy(upstreamPort: number): Promise<ResponseDroppingProxy> {
  const sockets = new Set<Socket>();
  let dropped = 0;
  const proxy = {
    url: '',
    dropping: true,
    dropped: () => dropped,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer((client) => {
    const upstream = connect({ host: '127.0.0.1', port: upstreamPort });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => sockets.delete(socket));
    }
    client.on('data', (chunk: Buffer) => upstream.write(chunk));
    upstream.on('data', (chunk: Buffer) => {
      if (proxy.dropping) dropped++;
      else client.write(chunk);
    });
    upstream.on('close', () => client.destroy());
    client.on('close', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}
