import type { Server } from 'node:http';
import { Server as NetServer } from 'node:net';
import { RequestTap } from '@mmmq/core';
import { Injectable, Optional } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { PushRequestHandler } from './push-request-handler';

/**
 * The push endpoint in the application's HTTP server: pushes for this application's listeners are taken before the
 * framework sees them (RequestTap), so a broker in the same application keeps its own `POST /mmmq/messages`, and
 * the application's body parser, global prefix or global guards never stand between the broker and the listeners.
 * Pushes for a consumer id of no listener here go on to the application.
 */
@Injectable()
export class PushRoute {
  private attached = false;

  constructor(
    private readonly pushes: PushRequestHandler,
    @Optional() private readonly adapterHost?: HttpAdapterHost,
  ) {}

  /** At bootstrap, before the server listens. An application context without HTTP takes no pushes. Idempotent. */
  attach(): void {
    const server: unknown = this.adapterHost?.httpAdapter?.getHttpServer();
    if (this.attached || !(server instanceof NetServer)) return;
    this.attached = true;
    RequestTap.of(server as Server).add((request, response) => {
      if (!this.pushes.isPush(request) || !this.pushes.knows(request)) return false;
      this.pushes.receive(request, response);
      return true;
    });
  }
}
