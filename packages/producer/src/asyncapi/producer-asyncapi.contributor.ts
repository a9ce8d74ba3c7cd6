import { ASYNCAPI_CONTRIBUTOR, asyncApiPayloadOf, type AsyncApiContributor, type AsyncApiOperation } from '@mmmq/core/internal';
import { Inject, Injectable } from '@nestjs/common';
import { RESOLVED_PRODUCER_OPTIONS, type ResolvedProducerOptions } from '../mmmq-producer-options.resolver';

/** What the `send` operations name as their source. */
export const PRODUCER_EVENTS_SOURCE = 'MmmqProducerModule events';

/**
 * The topics the `events` option declares, as the `send` operations of the application's AsyncAPI document. A
 * `Producer<E>`'s event map is a TypeScript type, gone at run time: only what `events` names can be described.
 */
@Injectable()
export class ProducerAsyncApiContributor implements AsyncApiContributor {
  constructor(@Inject(RESOLVED_PRODUCER_OPTIONS) private readonly options: ResolvedProducerOptions) {}

  [ASYNCAPI_CONTRIBUTOR](): AsyncApiOperation[] {
    return [...this.options.events].map(([topic, type]) => ({
      action: 'send',
      address: topic,
      source: PRODUCER_EVENTS_SOURCE,
      payload: asyncApiPayloadOf(type),
    }));
  }
}
