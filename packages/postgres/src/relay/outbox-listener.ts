import { setTimeout as delay } from 'node:timers/promises';
import { Logger } from '@nestjs/common';
import { Client, type PoolConfig } from 'pg';

/**
 * A dedicated connection that LISTENs on the outbox channel and calls `wake` on every notification. When the
 * connection fails it reconnects after `reconnectDelayMs`, and calls `wake` once reconnected: notifications sent
 * while it was down are lost, so the relay looks at the table instead.
 */
export class OutboxListener {
  private client?: Client;
  private readonly closing = new AbortController();
  private connecting?: Promise<void>;

  constructor(
    private readonly connection: PoolConfig,
    private readonly channel: string,
    private readonly reconnectDelayMs: number,
    private readonly wake: () => void,
    private readonly logger: Logger,
  ) {}

  /** Resolves once listening, or after the first failure (then it keeps trying in the background). */
  start(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.connecting = this.connect(resolve);
    });
  }

  /** `attempted` is called after the first attempt, whatever its outcome: a database that is down must not block start-up. */
  private async connect(attempted: () => void = () => undefined): Promise<void> {
    try {
      await this.connectUntilListening(attempted);
    } finally {
      attempted();
    }
  }

  private async connectUntilListening(attempted: () => void): Promise<void> {
    while (!this.closing.signal.aborted) {
      const client = new Client(this.connection);
      client.on('notification', () => this.wake());
      client.on('error', (error) => this.lost(client, error));
      client.on('end', () => this.lost(client, new Error('the connection ended')));
      try {
        await client.connect();
        await client.query(`LISTEN "${this.channel}"`);
        if (this.closing.signal.aborted) {
          await client.end().catch(() => undefined);
          return;
        }
        this.client = client;
        this.wake();
        return;
      } catch (error) {
        client.removeAllListeners('end');
        await client.end().catch(() => undefined);
        this.logger.warn(`Cannot LISTEN on ${this.channel}: ${(error as Error).message}; retrying in ${this.reconnectDelayMs} ms`);
        attempted();
        await delay(this.reconnectDelayMs, undefined, { signal: this.closing.signal }).catch(() => undefined);
      }
    }
  }

  private lost(client: Client, error: Error): void {
    if (this.client !== client || this.closing.signal.aborted) return;
    this.client = undefined;
    client.removeAllListeners('end');
    client.end().catch(() => undefined);
    this.logger.warn(`The LISTEN connection on ${this.channel} failed: ${error.message}; reconnecting in ${this.reconnectDelayMs} ms`);
    this.connecting = delay(this.reconnectDelayMs, undefined, { signal: this.closing.signal })
      .then(() => this.connect())
      .catch(() => undefined);
  }

  /** Stops reconnecting and closes the connection. Idempotent. */
  async close(): Promise<void> {
    this.closing.abort();
    await this.connecting?.catch(() => undefined);
    const client = this.client;
    this.client = undefined;
    if (client !== undefined) {
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
    }
  }
}
