import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer } from 'node:net';
import { BATCH_MESSAGES_PATH, CONSUMER_ID_HEADER, MESSAGES_PATH, RequestTap } from '@mmmq/core';
import { Inject, Injectable, Logger, OnApplicationBootstrap, Optional } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { MMMQ_HTTP_OPTIONS, ResolvedHttpOptions } from '../config/broker-options';
import { PublishIntake } from '../publish/publish-intake';
import { PublishRequestParser } from '../publish/publish-request.parser';
import { RawBodyReader } from './raw-body.reader';
import { Authenticator } from '../security/authenticator';
import { BrokerAccess } from './broker-access';
import type { BrokerRole } from '../security/broker-role';
import { answerWith, pathOf } from './node-answer';
import { PublishEndpoint } from './publish-endpoint';

const PUBLISH_ROLE: BrokerRole = 'publish';

/**
 * The data plane of publishing: `POST /mmmq/messages` and `/mmmq/messages/batch`, served at the level of Node's HTTP
 * server (RequestTap), before express or fastify and Nest's pipeline see the request — they cost more CPU than the
 * publish itself. The rules are the Nest routes' own, the same code: access (`BrokerAccess`), body reading
 * (`RawBodyReader`), parsing and topic permissions (`PublishEndpoint`), NACKs (`writeNack`); the server's timeouts,
 * connection caps and shutdown gate apply as to every request.
 *
 * Taken are exactly those two paths (a query string aside) with `POST`, and not a push (`mmmq-consumer-id`), which is
 * a consumer's in the same application. Everything else goes on to the framework untouched, where
 * `MessagesController` answers it by the same rules: another method, a path spelled another way (a trailing slash,
 * another case: the framework routes it as before), the path under a global prefix of the host application.
 */
@Injectable()
export class PublishRoutes implements OnApplicationBootstrap {
  private readonly logger = new Logger(PublishRoutes.name);
  private readonly access: BrokerAccess;
  private readonly endpoint: PublishEndpoint;

  constructor(
    private readonly reader: RawBodyReader,
    parser: PublishRequestParser,
    intake: PublishIntake,
    authenticator: Authenticator,
    @Inject(MMMQ_HTTP_OPTIONS) http: ResolvedHttpOptions,
    @Optional() private readonly adapterHost?: HttpAdapterHost,
  ) {
    this.access = new BrokerAccess(authenticator, http);
    this.endpoint = new PublishEndpoint(parser, intake);
  }

  onApplicationBootstrap(): void {
    // An application context without HTTP (a worker, a test module) has no routes to serve.
    const server: unknown = this.adapterHost?.httpAdapter?.getHttpServer();
    if (!(server instanceof NetServer)) return;
    RequestTap.of(server as Server).add((request, response) => this.take(request, response));
  }

  /** True when the request is one of the publish routes', which it then answers. */
  take(request: IncomingMessage, response: ServerResponse): boolean {
    if (request.method !== 'POST' || request.headers[CONSUMER_ID_HEADER] !== undefined) return false;
    const path = pathOf(request);
    const batch = path === BATCH_MESSAGES_PATH;
    if (!batch && path !== MESSAGES_PATH) return false;
    void answerWith(request, response, this.logger, async () => {
      const caller = this.access.admit(request, PUBLISH_ROLE);
      const body = await this.reader.read(request);
      return batch ? this.endpoint.publishBatch(body, caller) : this.endpoint.publish(body, caller);
    });
    return true;
  }
}
