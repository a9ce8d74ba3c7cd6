import type { IncomingHttpHeaders, IncomingMessage, Server } from 'node:http';
import { Server as NetServer } from 'node:net';
import { CONSUMER_ID_HEADER, RequestTap } from '@mmmq/core';
import { Injectable, OnApplicationBootstrap, Optional } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';

/** Where every broker route lives. */
const BROKER_ROUTES = '/mmmq/';
/** The headers that tell a framework's body parser there is a body to read, and of what type. */
const BODY_HEADERS = ['content-type', 'content-length', 'transfer-encoding'] as const;
const HIDDEN_BODY_HEADERS = Symbol('mmmq.hiddenBodyHeaders');

type WithHiddenHeaders = IncomingMessage & { [HIDDEN_BODY_HEADERS]?: IncomingHttpHeaders };

/**
 * Keeps the application's body parsers off the broker's request bodies, so that the broker reads the exact bytes
 * itself, with its own limits, types and errors — on express and fastify, with Nest's default body parser, with
 * `rawBody: true` or `{ bodyParser: false }` alike. Before the framework sees a request to a broker route that has
 * a body, the headers a parser goes by are set aside: express's and fastify's parsers then see no body and leave
 * the stream unread. The broker puts them back before it looks at the request ({@link restoreBodyHeaders}, through
 * `incomingMessageOf`). Pushes to a consumer of the same application (`mmmq-consumer-id`) are left as they are.
 */
@Injectable()
export class RawBodyRoutes implements OnApplicationBootstrap {
  constructor(@Optional() private readonly adapterHost?: HttpAdapterHost) {}

  onApplicationBootstrap(): void {
    // An application context without HTTP (a worker, a test module) has no routes to keep.
    const server: unknown = this.adapterHost?.httpAdapter?.getHttpServer();
    if (!(server instanceof NetServer)) return;
    RequestTap.of(server as Server).add((request) => {
      if (request.url?.startsWith(BROKER_ROUTES) && request.headers[CONSUMER_ID_HEADER] === undefined) hideBodyHeaders(request);
      return false;
    });
  }
}

function hideBodyHeaders(request: WithHiddenHeaders): void {
  const { headers } = request;
  if (headers['content-length'] === undefined && headers['transfer-encoding'] === undefined) return;
  const hidden: IncomingHttpHeaders = {};
  for (const name of BODY_HEADERS) {
    if (headers[name] === undefined) continue;
    hidden[name] = headers[name] as string;
    delete headers[name];
  }
  request[HIDDEN_BODY_HEADERS] = hidden;
}

/** Puts back the body headers {@link RawBodyRoutes} set aside, if it did. Idempotent. */
export function restoreBodyHeaders(request: IncomingMessage): void {
  const hidden = (request as WithHiddenHeaders)[HIDDEN_BODY_HEADERS];
  if (hidden === undefined) return;
  Object.assign(request.headers, hidden);
  (request as WithHiddenHeaders)[HIDDEN_BODY_HEADERS] = undefined;
}
