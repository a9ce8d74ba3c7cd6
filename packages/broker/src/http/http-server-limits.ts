import { Server } from 'node:net';
import type { Server as HttpServer } from 'node:http';
import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap, Optional } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { HttpShutdownGate } from '@mmmq/core';
import { MMMQ_HTTP_OPTIONS, ResolvedHttpOptions } from '../config/broker-options';
import { PerIpConnectionCap } from '../security/per-ip-connection-cap';
import { SERVER_MAX_HEADERS_COUNT } from './request-head';

/** The timeouts of Node's HTTP server this sets; express's and fastify's servers are both Node's. */
interface NodeHttpServerTimeouts {
  headersTimeout: number;
  requestTimeout: number;
  keepAliveTimeout: number;
  /** How often Node looks for requests past their headers or request timeout; read when the server starts listening. */
  connectionsCheckingInterval: number;
  maxHeadersCount: number | null;
}

/** Node checks every 30 s by default, which would let a late request live up to 30 s past its timeout. */
const MAX_CHECKING_INTERVAL_MS = 1_000;
const MIN_CHECKING_INTERVAL_MS = 10;

/**
 * Applies `http.headersTimeoutMs`, `http.requestTimeoutMs`, `http.keepAliveTimeoutMs`,
 * `http.maxConnectionsPerIp` and the header-field cap (request-head.ts) to the application's HTTP server at bootstrap, before it listens: on express and
 * fastify alike, since both run on Node's server. A request not complete in time is answered 408 by Node and its
 * connection closed; a request whose body has arrived is never cut, however long the broker takes to answer.
 * These apply to every route of the application, the broker's and the host's, and so does the shutdown
 * behaviour of {@link HttpShutdownGate}: every request answered (503 when it cannot be served), none dropped.
 */
@Injectable()
export class HttpServerLimits implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private shutdownGate?: HttpShutdownGate;

  constructor(
    @Inject(MMMQ_HTTP_OPTIONS) private readonly options: ResolvedHttpOptions,
    @Optional() private readonly adapterHost?: HttpAdapterHost,
  ) {}

  onApplicationBootstrap(): void {
    // An application context without HTTP (a worker, a test module) has no server to limit.
    const server: unknown = this.adapterHost?.httpAdapter?.getHttpServer();
    if (!(server instanceof Server)) return;
    const timeouts = server as Server & NodeHttpServerTimeouts;
    const { headersTimeoutMs, requestTimeoutMs, keepAliveTimeoutMs, maxConnectionsPerIp } = this.options;
    timeouts.headersTimeout = headersTimeoutMs;
    timeouts.requestTimeout = requestTimeoutMs;
    timeouts.keepAliveTimeout = keepAliveTimeoutMs;
    timeouts.connectionsCheckingInterval = Math.max(
      MIN_CHECKING_INTERVAL_MS,
      Math.min(MAX_CHECKING_INTERVAL_MS, Math.floor(headersTimeoutMs / 4)),
    );
    timeouts.maxHeadersCount = SERVER_MAX_HEADERS_COUNT;
    new PerIpConnectionCap(maxConnectionsPerIp, 'HTTP').attach(server);
    // Shared with a consumer module in the same application: one gate per server.
    this.shutdownGate = HttpShutdownGate.of(server as HttpServer);
  }

  /**
   * Before the HTTP server closes (Nest closes it after this hook, and the topics after that): answers what can
   * be answered while the storage is still open. A request is given at most the request timeout.
   */
  async beforeApplicationShutdown(): Promise<void> {
    await this.shutdownGate?.close(this.options.requestTimeoutMs);
  }
}
