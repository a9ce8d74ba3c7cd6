import { FASTIFY_ROUTE_CONFIG_METADATA as PLATFORM_KEY } from '@nestjs/platform-fastify/constants';
import { FASTIFY_ROUTE_CONFIG_METADATA, READS_RAW_BODY, ReadsRawBody } from '../../src/http/reads-raw-body.decorator';

describe('@ReadsRawBody()', () => {
  it('uses the metadata key @nestjs/platform-fastify reads route config from, so fastify sees the marker', () => {
    expect(FASTIFY_ROUTE_CONFIG_METADATA).toBe(PLATFORM_KEY);
    class Controller {
      @ReadsRawBody()
      publish(): void {}
    }
    expect(Reflect.getMetadata(PLATFORM_KEY, Controller.prototype.publish)).toEqual({ [READS_RAW_BODY]: true });
  });
});
