import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer } from 'node:net';
import { CONSUMERS_PATH, RequestTap } from '@mmmq/core';
import { Inject, Injectable, Logger, OnApplicationBootstrap, Optional } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { MMMQ_HTTP_OPTIONS, ResolvedHttpOptions } from '../config/broker-options';
import { PullService } from '../pull/pull-service';
import { Authenticator } from '../security/authenticator';
import { BrokerAccess } from './broker-access';
import type { BrokerRole } from '../security/broker-role';
import { JsonBodyReader } from './json-body.reader';
import { answerWith, pathOf } from './node-answer';
import { BodyOf, CLIENT_GONE, PullEndpoint } from './pull-endpoint';

const CONSUME_ROLE: BrokerRole = 'consume';
const PREFIX = `${CONSUMERS_PATH}/`;

type Action = (endpoint: PullEndpoint, consumerId: string, body: BodyOf, response: ServerResponse) => Promise<unknown>;

const ACTIONS: ReadonlyMap<string, Action> = new Map<string, Action>([
  ['fetch', (endpoint, consumerId, body, response) => endpoint.fetch(consumerId, body, clientGone(response))],
  ['ack', (endpoint, consumerId, body) => endpoint.ack(consumerId, body)],
  ['nack', (endpoint, consumerId, body) => endpoint.nack(consumerId, body)],
  ['extend', (endpoint, consumerId, body) => endpoint.extend(consumerId, body)],
]);

/**
 * The data plane of pulling: `POST /mmmq/consumers/{consumerId}/fetch`, `/ack`, `/nack` and `/extend`, served at
 * the level of Node's HTTP server (RequestTap) like the publish routes (`PublishRoutes`), by the rules of the Nest
 * routes, the same code: access with the consumer's scope (`BrokerAccess`), body reading (`JsonBodyReader`), the
 * steps (`PullEndpoint`), NACKs. Taken only with `POST` and a consumer id without percent-encoding; everything else
 * (another method, an encoded id, terminate / seek / recover) goes on to the framework, where `ConsumersController`
 * answers it.
 */
@Injectable()
export class PullRoutes implements OnApplicationBootstrap {
  private readonly logger = new Logger(PullRoutes.name);
  private readonly access: BrokerAccess;
  private readonly endpoint: PullEndpoint;

  constructor(
    private readonly body: JsonBodyReader,
    pull: PullService,
    authenticator: Authenticator,
    @Inject(MMMQ_HTTP_OPTIONS) http: ResolvedHttpOptions,
    @Optional() private readonly adapterHost?: HttpAdapterHost,
  ) {
    this.access = new BrokerAccess(authenticator, http);
    this.endpoint = new PullEndpoint(pull);
  }

  onApplicationBootstrap(): void {
    // An application context without HTTP (a worker, a test module) has no routes to serve.
    const server: unknown = this.adapterHost?.httpAdapter?.getHttpServer();
    if (!(server instanceof NetServer)) return;
    RequestTap.of(server as Server).add((request, response) => this.take(request, response));
  }

  /** True when the request is one of the four pull routes', which it then answers. */
  take(request: IncomingMessage, response: ServerResponse): boolean {
    if (request.method !== 'POST' || !request.url?.startsWith(PREFIX)) return false;
    const path = pathOf(request);
    const slash = path.indexOf('/', PREFIX.length);
    const consumerId = path.slice(PREFIX.length, slash);
    const action = slash === -1 ? undefined : ACTIONS.get(path.slice(slash + 1));
    // An encoded id is left to the framework, which decodes it as it always has.
    if (action === undefined || consumerId === '' || consumerId.includes('%')) return false;
    void answerWith(request, response, this.logger, () => {
      this.access.admit(request, CONSUME_ROLE, consumerId);
      return action(this.endpoint, consumerId, () => this.body.read(request), response);
    });
    return true;
  }
}

/** Aborts once the request closes: answered, or its client went away (a long poll then stops waiting). */
function clientGone(response: ServerResponse): AbortSignal {
  const gone = new AbortController();
  // A reason of our own spares building a DOMException (with its stack) each time.
  response.once('close', () => gone.abort(CLIENT_GONE));
  return gone.signal;
}
