import type { Server, Socket } from 'node:net';
import { Logger } from '@nestjs/common';

const IPV4_MAPPED_PREFIX = '::ffff:';

/**
 * Caps the connections one client IP address holds open on a server: a connection beyond the cap is destroyed as
 * soon as it is accepted, so one client cannot exhaust the file descriptors every other client needs. Logs a
 * warning when an address reaches the cap, and again only after it fell back under it.
 */
export class PerIpConnectionCap {
  private readonly logger = new Logger(PerIpConnectionCap.name);
  private readonly open = new Map<string, number>();
  private readonly capped = new Set<string>();

  constructor(
    private readonly limit: number,
    /** Names the server in the warning: `HTTP`, `publish stream`. */
    private readonly listener: string,
  ) {}

  attach(server: Server): void {
    server.on('connection', (socket: Socket) => this.admit(socket));
  }

  private admit(socket: Socket): void {
    const address = normalise(socket.remoteAddress);
    const count = this.open.get(address) ?? 0;
    if (count >= this.limit) {
      if (!this.capped.has(address)) {
        this.capped.add(address);
        this.logger.warn(`${address} holds ${this.limit} ${this.listener} connections (http.maxConnectionsPerIp); closing more`);
      }
      socket.destroy();
      return;
    }
    this.open.set(address, count + 1);
    socket.once('close', () => this.release(address));
  }

  private release(address: string): void {
    const count = (this.open.get(address) ?? 1) - 1;
    if (count === 0) this.open.delete(address);
    else this.open.set(address, count);
    if (count < this.limit) this.capped.delete(address);
  }
}

/** One client is one address, whether its IPv4 peer address is reported plain or IPv4-mapped. */
function normalise(address: string | undefined): string {
  if (address === undefined) return 'unknown';
  return address.startsWith(IPV4_MAPPED_PREFIX) && address.includes('.') ? address.slice(IPV4_MAPPED_PREFIX.length) : address;
}
