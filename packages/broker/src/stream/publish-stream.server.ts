import { createServer, Server, Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap, Optional } from '@nestjs/common';
import { SECURE_STREAM_URL_PROTOCOL, STREAM_URL_PROTOCOL } from '@mmmq/core';
import { MMMQ_HTTP_OPTIONS, MMMQ_STREAM_OPTIONS, ResolvedHttpOptions, ResolvedStreamOptions } from '../config/broker-options';
import { PublishIntake } from '../publish/publish-intake';
import { PublishRequestParser } from '../publish/publish-request.parser';
import { Authenticator } from '../security/authenticator';
import { PerIpConnectionCap } from '../security/per-ip-connection-cap';
import { settleAll } from '../storage/settle-all';
import { TopicQueueBootstrapper } from '../storage/topic-queue-bootstrapper';
import { TlsCertificates } from '../tls/tls-certificates';
import { PublishStreamConnection, StreamConnectionView } from './publish-stream.connection';
import { StreamListenError } from './stream.errors';

/** On shutdown, how long connections get to receive the answers to what they sent before they are cut. */
export const STREAM_SHUTDOWN_GRACE_MS = 5_000;

/**
 * Listens for publish streams (`stream.port`) once the application has bootstrapped, and on shutdown stops
 * accepting, answers what was received, then closes every connection, before the topic logs close.
 */
@Injectable()
export class PublishStreamServer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(PublishStreamServer.name);
  private readonly connections = new Set<PublishStreamConnection>();
  private server?: Server;
  private closed?: Promise<void>;

  constructor(
    @Inject(MMMQ_STREAM_OPTIONS) private readonly options: ResolvedStreamOptions | undefined,
    @Inject(MMMQ_HTTP_OPTIONS) private readonly http: ResolvedHttpOptions,
    private readonly parser: PublishRequestParser,
    private readonly intake: PublishIntake,
    private readonly topics: TopicQueueBootstrapper,
    private readonly authenticator: Authenticator,
    @Optional() private readonly tls?: TlsCertificates,
  ) {}

  /** Where the stream listens; undefined while it is off or not yet listening. */
  address(): AddressInfo | undefined {
    const address = this.server?.address();
    return typeof address === 'object' && address !== null ? address : undefined;
  }

  /** The open connections, as the console lists them; undefined while the stream is off. */
  connectionViews(): StreamConnectionView[] | undefined {
    return this.options === undefined ? undefined : [...this.connections].map((connection) => connection.view());
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.options) return;
    // Like HTTP, which Nest only opens after every bootstrap hook: no publish before the topics on disk are back.
    await this.topics.whenRestored();
    // A TLS handshake gets the time an HTTP request head gets.
    const server = this.tls ? createTlsServer({ ...this.tls.credentials, handshakeTimeout: this.http.headersTimeoutMs }) : createServer();
    if (this.tls) this.tls.attach(server as ReturnType<typeof createTlsServer>);
    // First, so that a connection over the cap is gone before it is accepted.
    new PerIpConnectionCap(this.http.maxConnectionsPerIp, 'publish stream').attach(server);
    server.on(this.tls ? 'secureConnection' : 'connection', (socket: Socket) => this.accept(socket));
    this.server = server;
    const { port, host } = this.options;
    await new Promise<void>((resolve, reject) => {
      const fail = (cause: Error) =>
        reject(new StreamListenError(`The publish stream cannot listen on ${host}:${port} (stream.port): ${cause.message}`, { cause }));
      server.once('error', fail);
      server.listen(port, host, () => {
        server.off('error', fail);
        resolve();
      });
    });
    const bound = this.address()!;
    const scheme = this.tls ? SECURE_STREAM_URL_PROTOCOL : STREAM_URL_PROTOCOL;
    this.logger.log(`Publish stream listening on ${scheme}//${bound.address}:${bound.port}`);
  }

  beforeApplicationShutdown(): Promise<void> {
    this.closed ??= this.close();
    return this.closed;
  }

  private accept(socket: Socket): void {
    if (socket.destroyed) return; // refused by the per-IP cap
    const connection = new PublishStreamConnection(
      socket,
      this.parser,
      this.intake,
      this.http.maxBodyBytes,
      this.authenticator,
      this.http.headersTimeoutMs,
    );
    this.connections.add(connection);
    socket.once('close', () => this.connections.delete(connection));
  }

  private async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const connection of this.connections) connection.stopReading();
    const answered = Promise.all([...this.connections].map((connection) => connection.whenAnswered()));
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, STREAM_SHUTDOWN_GRACE_MS)));
    await Promise.race([answered, grace]);
    clearTimeout(timer);
    await settleAll(
      [...this.connections].map(async (connection) => connection.destroy()).concat(stopped),
      'Closing the publish stream failed',
    );
  }
}
