import type { IncomingMessage } from 'node:http';
import type { INestApplication } from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';
import { Acknowledgement, BrokerAcknowledgement } from '@mmmq/core';
import { assertJsonRequest } from './json-request';
import { READS_RAW_BODY } from './reads-raw-body.decorator';

type Done = (error: Error | null, body?: Buffer) => void;
type FastifyError = Error & { statusCode?: number };

/** The parts of fastify's request and reply this needs; typed here so that the broker does not depend on fastify. */
interface FastifyRequestLike {
  headers: IncomingHttpHeaders;
  routeOptions?: { config?: Record<string, unknown> };
}
interface FastifyReplyLike {
  code(status: number): FastifyReplyLike;
  send(body: unknown): void;
}
interface FastifyRouteOptions {
  config?: Record<string, unknown>;
  errorHandler?: (error: FastifyError, request: FastifyRequestLike, reply: FastifyReplyLike) => void;
}
interface FastifyInstanceLike {
  initialConfig: { bodyLimit?: number };
  removeAllContentTypeParsers(): void;
  addContentTypeParser(contentType: string, parser: (request: FastifyRequestLike, payload: IncomingMessage, done: Done) => void): void;
  addHook(name: 'onRoute', hook: (route: FastifyRouteOptions) => void): void;
}

/** Fastify's own default, for an instance whose configuration does not say. */
const FASTIFY_DEFAULT_BODY_LIMIT = 1024 * 1024;
const UNSUPPORTED_MEDIA_TYPE = 415;
const INTERNAL_ERROR = 500;

/**
 * On `@nestjs/platform-fastify`, hands request bodies over unparsed. The broker's routes (`@ReadsRawBody()`) read
 * the body themselves, exactly as on express: limits, content types, encodings and every error are the broker's,
 * with its NACK bodies, and a body is never buffered beyond `http.maxBodyBytes`. Any other route of the
 * application gets its body as a raw Buffer, up to fastify's `bodyLimit`. Errors fastify raises itself on a broker
 * route (a malformed `Content-Type`) are answered as NACKs too.
 *
 * Create the app with `{ bodyParser: false }` (Nest would otherwise add its own JSON parser at init) and call this
 * before `app.listen()` (or `app.init()`). Nothing to do on express: create that app with `{ bodyParser: false }`
 * (or `{ rawBody: true }`).
 */
export function registerRawBodyParser(app: INestApplication): void {
  const adapter = app.getHttpAdapter();
  if (adapter.getType() !== 'fastify') return;
  const fastify = adapter.getInstance() as FastifyInstanceLike;
  const hostBodyLimit = fastify.initialConfig.bodyLimit ?? FASTIFY_DEFAULT_BODY_LIMIT;
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', (request, payload, done) => {
    if (readsRawBody(request.routeOptions?.config)) done(null);
    else collect(payload, hostBodyLimit, done);
  });
  fastify.addHook('onRoute', (route) => {
    if (readsRawBody(route.config)) route.errorHandler = answerWithNack;
  });
}

function readsRawBody(config: Record<string, unknown> | undefined): boolean {
  return config?.[READS_RAW_BODY] === true;
}

/** Answers an error fastify raised on a broker route before the broker saw the request, as the broker would. */
function answerWithNack(error: FastifyError, request: FastifyRequestLike, reply: FastifyReplyLike): void {
  const status = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : INTERNAL_ERROR;
  let message = status === INTERNAL_ERROR ? 'Internal broker error' : error.message;
  // A Content-Type fastify cannot parse: the broker's own check says why, in the words it uses on express.
  if (status === UNSUPPORTED_MEDIA_TYPE) {
    try {
      assertJsonRequest(request.headers);
    } catch (refusal) {
      message = (refusal as Error).message;
    }
  }
  const body: BrokerAcknowledgement = { acknowledgement: Acknowledgement.NACK, message };
  reply.code(status).send(body);
}

/** The body of a route that is not the broker's, as fastify's own `parseAs: 'buffer'` would give it. */
function collect(payload: IncomingMessage, limit: number, done: Done): void {
  const chunks: Buffer[] = [];
  let received = 0;
  payload.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received <= limit) chunks.push(chunk);
  });
  payload.on('end', () => {
    if (received <= limit) done(null, Buffer.concat(chunks, received));
    else done(Object.assign(new Error(`Request body is larger than ${limit} bytes`), { statusCode: 413 }));
  });
  payload.on('error', (error) => done(error));
}
