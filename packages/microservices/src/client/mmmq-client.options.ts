import type { MmmqProducerOptions } from '@mmmq/producer';
import type { Serializer } from '@nestjs/microservices';

/**
 * Options of {@link MmmqClient}, given as `options` of `ClientsModule.register([{ name, customClass: MmmqClient,
 * options }])`: the producer's options (`broker` required; retries, timeout, batching, TLS, token, with the
 * producer's defaults) plus Nest's `serializer`.
 */
export interface MmmqClientOptions extends MmmqProducerOptions {
  /**
   * Turns `{ pattern, data }` into the content to publish: when it returns an object with a `data` key, that value
   * is the content, else what it returns is. Default Nest's `IdentitySerializer`, so the content is exactly the
   * emitted data, the same JSON as `Producer.produce(topic, data)`.
   */
  serializer?: Serializer;
}
