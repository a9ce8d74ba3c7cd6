import { createServer, type AddressInfo, type Server, type Socket, connect } from 'node:net';

/**
 * A TCP proxy in front of RabbitMQ that a test can cut: `cut()` destroys every open connection (both sides), as a
 * network failure would; new connections are accepted again at once unless `refuse` is set.
 */
export class TcpProxy {
  private readonly sockets = new Set<Socket>();
  private server: Server | undefined;
  /** While true, new connections are closed on arrival (RabbitMQ "down"). */
  refuse = false;
  /** Connections accepted so far. */
  accepted = 0;
  /** Connections closed on arrival while `refuse` was set. */
  refused = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async start(): Promise<number> {
    const server = createServer((client) => this.accept(client));
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  }

  /** Destroys every open connection; returns how many. */
  cut(): number {
    const count = this.sockets.size;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    return count;
  }

  /** Stops forwarding in both directions without closing anything: a half-open connection, as after a dead host. */
  freeze(): void {
    for (const socket of this.sockets) socket.pause();
  }

  get open(): number {
    return this.sockets.size;
  }

  async stop(): Promise<void> {
    this.cut();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    if (this.refuse) {
      this.refused++;
      client.destroy();
      return;
    }
    this.accepted++;
    const upstream = connect(this.targetPort, this.targetHost);
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        this.sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  }
}
