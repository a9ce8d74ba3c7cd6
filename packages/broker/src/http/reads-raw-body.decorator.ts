import { SetMetadata } from '@nestjs/common';

/**
 * Where `@nestjs/platform-fastify` looks for a route's fastify `config` (its `FASTIFY_ROUTE_CONFIG_METADATA`,
 * what `@RouteConfig()` sets); repeated here so that the broker does not depend on fastify.
 */
export const FASTIFY_ROUTE_CONFIG_METADATA = '__fastify_route_config__';
/** Key of the fastify route config that marks a route whose body the broker reads itself. */
export const READS_RAW_BODY = 'mmmqReadsRawBody';

/**
 * Marks a broker route that reads its request body itself (`RawBodyReader`), so that on fastify
 * `registerRawBodyParser` leaves the body unread for it, and the limits, types and errors are the broker's on
 * every platform. Express needs nothing: create that app with `{ bodyParser: false }`.
 */
export const ReadsRawBody = () => SetMetadata(FASTIFY_ROUTE_CONFIG_METADATA, { [READS_RAW_BODY]: true });
