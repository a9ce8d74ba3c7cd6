import { Logger } from '@nestjs/common';
import { connect, type ChannelModel } from 'amqplib';
import { backoffDelay, sleep } from '@mmmq/core';
import { RabbitMqConnectionError } from './errors/rabbitmq-connection.error';
import { RabbitMqTransportClosedError } from './errors/transport-closed.error';
import type { ResolvedRabbitMqOptions } from './rabbitmq-transport.options';
import { bounded } from './shutdown-step';

/** Runs on every (re)connection before anyone is handed it; a failure drops that connection and tries again. */
export type ConnectionSetup = (model: ChannelModel) => Promise<void>;

interface Waiter {
  resolve(model: ChannelModel): void;
  reject(error: Error): void;
}

/**
 * One AMQP connection that comes back: connects to the URLs in turn (cluster nodes), waits with backoff when none
 * answers, and once a connection drops, connects again the same way. Loss and recovery are logged once each.
 */
export class ConnectionManager {
  private readonly logger: Logger;
  private readonly stopped = new AbortController();
  private readonly closeCalled = untilAborted(this.stopped.signal);
  private readonly waiters = new Set<Waiter>();
  private current: ChannelModel | undefined;
  private running: Promise<void> | undefined;
  private lastError: unknown;

  constructor(
    private readonly options: ResolvedRabbitMqOptions,
    private readonly connectionName: string,
    private readonly setup: ConnectionSetup = async () => undefined,
  ) {
    this.logger = new Logger(`RabbitMq ${connectionName}`);
  }

  /** The live connection, waiting at most `timeoutMs` for one. */
  async connection(timeoutMs: number): Promise<ChannelModel> {
    if (this.stopped.signal.aborted) throw new RabbitMqTransportClosedError(`The RabbitMQ ${this.connectionName} is closed`);
    if (this.current !== undefined) return this.current;
    this.running ??= this.run();
    return new Promise<ChannelModel>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(
          new RabbitMqConnectionError(
            `No connection to RabbitMQ (${this.describeUrls()}) within ${timeoutMs} ms: ${describeError(this.lastError)}`,
            {
              cause: this.lastError,
            },
          ),
        );
      }, timeoutMs);
      const waiter: Waiter = {
        resolve: (model) => (clearTimeout(timer), resolve(model)),
        reject: (error) => (clearTimeout(timer), reject(error)),
      };
      this.waiters.add(waiter);
    });
  }

  /** True while a connection is up and set up (the subscriber's listeners attached to it). */
  get connected(): boolean {
    return this.current !== undefined;
  }

  /** Why the connection last dropped or the last attempt failed, in one line (no credentials: URLs are not in it). */
  get lastErrorMessage(): string {
    return describeError(this.lastError);
  }

  /** Connects in the background (e.g. to resubscribe after a drop) without anyone waiting. */
  start(): void {
    if (!this.stopped.signal.aborted) this.running ??= this.run();
  }

  /** Stops reconnecting and closes the connection. Idempotent. */
  async close(): Promise<void> {
    if (!this.stopped.signal.aborted) {
      this.stopped.abort();
      for (const waiter of this.waiters) waiter.reject(new RabbitMqTransportClosedError(`The RabbitMQ ${this.connectionName} was closed`));
      this.waiters.clear();
    }
    const model = this.current;
    this.current = undefined;
    if (model !== undefined) await bounded(model.close());
    await this.running;
  }

  private async run(): Promise<void> {
    let failures = 0;
    let lostAt: number | undefined;
    while (!this.stopped.signal.aborted) {
      const connected = await this.connectOnce(failures);
      if (connected === undefined) {
        failures++;
        // Once per outage: why it does not come back (e.g. a queue declaration RabbitMQ refuses), not every attempt.
        if (failures === 1)
          this.logger.warn(`Cannot connect to RabbitMQ (${this.describeUrls()}): ${describeError(this.lastError)}; retrying with backoff`);
        await sleep(backoffDelay(failures, this.options.reconnect), this.stopped.signal);
        continue;
      }
      if (lostAt !== undefined) this.logger.log(`Connection to RabbitMQ recovered after ${Date.now() - lostAt} ms`);
      failures = 0;
      const { model, closed } = connected;
      if (this.stopped.signal.aborted) {
        await model.close().catch(() => undefined);
        return;
      }
      this.current = model;
      for (const waiter of this.waiters) waiter.resolve(model);
      this.waiters.clear();
      // Or until close(): on a half-open connection, its close may never be answered.
      const reason = await Promise.race([closed, this.closeCalled]);
      if (this.current === model) this.current = undefined;
      if (this.stopped.signal.aborted) return;
      lostAt = Date.now();
      this.lastError = reason;
      this.logger.warn(`Connection to RabbitMQ lost (${describeError(reason)}); reconnecting with backoff`);
    }
  }

  /** One round over the URLs; undefined when none connected (and set up). */
  private async connectOnce(round: number): Promise<{ model: ChannelModel; closed: Promise<unknown> } | undefined> {
    const urls = this.options.urls;
    for (let i = 0; i < urls.length && !this.stopped.signal.aborted; i++) {
      // Start each round at the next node, so a dead first node does not cost every reconnect a timeout.
      const url = urls[(round + i) % urls.length];
      let model: ChannelModel | undefined;
      try {
        model = await connect(url, {
          timeout: this.options.connectTimeoutMs,
          clientProperties: { connection_name: `mmmq ${this.connectionName}` },
        });
        // Errors come with a 'close' event too, which is what is acted on; without a listener they would crash.
        model.on('error', (error: Error) => (this.lastError = error));
        const opened = model;
        const closed = new Promise<unknown>((resolve) =>
          opened.once('close', (reason: unknown) => {
            // At once, not a tick later: nobody may be handed a connection that closed.
            if (this.current === opened) this.current = undefined;
            resolve(reason);
          }),
        );
        if (this.stopped.signal.aborted) throw new RabbitMqTransportClosedError('closed while connecting');
        await this.setup(model);
        return { model, closed };
      } catch (error) {
        this.lastError = error;
        await model?.close().catch(() => undefined);
      }
    }
    return undefined;
  }

  private describeUrls(): string {
    return this.options.urls.map(redact).join(', ');
  }
}

/** A URL without its password, for logs and errors. */
export function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(invalid URL)';
  }
}

function untilAborted(signal: AbortSignal): Promise<unknown> {
  return new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
}

/** An error's message for logs and health reports. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  return error === undefined ? 'no error reported' : String(error);
}
