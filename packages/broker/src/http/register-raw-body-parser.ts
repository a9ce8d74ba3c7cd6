import type { INestApplication } from '@nestjs/common';
import { MAX_BODY_BYTES_LIMIT } from '../mmmq-broker-options.resolver';

/** The part of a fastify instance this needs; typed here so that the broker does not depend on fastify. */
interface FastifyContentTypeParsers {
  removeAllContentTypeParsers(): void;
  addContentTypeParser(
    contentType: string,
    options: { parseAs: 'buffer'; bodyLimit: number },
    parser: (request: unknown, body: Buffer, done: (error: Error | null, body?: Buffer) => void) => void,
  ): void;
}

/**
 * On `@nestjs/platform-fastify`, makes every request body arrive as the raw bytes, which is what the broker
 * stores. Fastify's own limit is set to the highest `http.maxBodyBytes` allowed, so the broker's limit is the
 * one that answers (with its 413 NACK). Create the app with `{ bodyParser: false }` (Nest would otherwise add its
 * own JSON parser at init) and call this before `app.listen()`. Nothing to do on express: create
 * that app with `{ bodyParser: false }` (or `{ rawBody: true }`).
 */
export function registerRawBodyParser(app: INestApplication): void {
  const adapter = app.getHttpAdapter();
  if (adapter.getType() !== 'fastify') return;
  const fastify = adapter.getInstance() as FastifyContentTypeParsers;
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_BODY_BYTES_LIMIT }, (_request, body, done) =>
    done(null, body),
  );
}
