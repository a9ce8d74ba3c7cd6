import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer } from 'node:net';
import { InProcessBrokerTransport, RequestTap } from '@mmmq/core';
import { Injectable, Optional } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ListenerRegistry } from '../listener/listener-registry';
import { PushRequestHandler } from './push-request-handler';

/**
 * The push endpoint in the application's HTTP server: pushes for this application's listeners are taken before the
 * framework sees them (RequestTap), so a broker in the same application keeps its own `POST /mmmq/messages`, and
 * the application's body parser, global prefix or global guards never stand between the broker and the listeners.
 * A push for a consumer id of no listener here (or without one) goes on to another taker (a microservice's) or, in
 * an application without a broker, is answered by the consumer (404, naming the known consumer ids); with a broker
 * it goes on to the broker's routes.
 */
@Injectable()
export class PushRoute {
  private attached = false;

  constructor(
    private readonly pushes: PushRequestHandler,
    private readonly registry: ListenerRegistry,
    @Optional() private readonly adapterHost?: HttpAdapterHost,
    @Optional() private readonly broker?: InProcessBrokerTransport,
  ) {}

  /**
   * At bootstrap, before the server listens. An application context without HTTP takes no pushes. Idempotent.
   * @throws PushRouteConflictError when another module takes the pushes of one of these listeners' consumer ids
   */
  attach(): void {
    const server: unknown = this.adapterHost?.httpAdapter?.getHttpServer();
    if (this.attached || !(server instanceof NetServer)) return;
    this.attached = true;
    const tap = RequestTap.of(server as Server);
    const claims = new Map(this.registry.all().map((listener) => [listener.consumerId, `MmmqConsumerModule (${listener.where})`]));
    tap.add((request, response) => this.pushes.isPush(request) && this.pushes.knows(request) && this.receive(request, response), claims);
    if (this.broker !== undefined) return;
    tap.addFallback((request, response) => this.pushes.isPush(request) && this.receive(request, response));
  }

  private receive(request: IncomingMessage, response: ServerResponse): true {
    this.pushes.receive(request, response);
    return true;
  }
}
