import type { Server as HttpServer } from 'node:http';
import { Server } from 'node:net';
import { HttpShutdownGate } from '@mmmq/core';
import { Injectable, Optional } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';

/**
 * The application's HTTP server, the one pushes arrive on, during shutdown ({@link HttpShutdownGate}): a push whose
 * body stalled is answered 503 instead of holding `app.close()` open forever (Node's request timeout stops counting
 * once the server closes), and no request is left unanswered. Shared with the broker's module when both run in one
 * application: one gate per server.
 */
@Injectable()
export class DeliveryServerGate {
  private gate?: HttpShutdownGate;

  constructor(@Optional() private readonly adapterHost?: HttpAdapterHost) {}

  /** At bootstrap, before the server listens. An application context without HTTP has nothing to guard. */
  attach(): void {
    const server: unknown = this.adapterHost?.httpAdapter?.getHttpServer();
    // Express's and fastify's servers are both Node's (https included, which is a net.Server but not an http.Server).
    if (server instanceof Server) this.gate = HttpShutdownGate.of(server as HttpServer);
  }

  /** Refuses new requests with 503 and waits up to `maxWaitMs` for those in flight. Idempotent. */
  async close(maxWaitMs: number): Promise<void> {
    await this.gate?.close(maxWaitMs);
  }
}
