import { InProcessBrokerTransport } from '@mmmq/core';
import { ASYNCAPI_CONTRIBUTOR, type AsyncApiContributor, type AsyncApiOperation } from '@mmmq/core/internal';
import { InMemoryTransport } from '@mmmq/core/testing';
import { Inject, Injectable, Optional } from '@nestjs/common';
import type { ListenerDefinition } from '../listener/listener-definition';
import { ListenerRegistry } from '../listener/listener-registry';
import { MMMQ_CONSUMER_RESOLVED_OPTIONS, ResolvedConsumerOptions } from '../config/resolved-consumer-options';
import { receivingRoute } from '../transport/receiving-route';

/**
 * The application's `@MMMQListener` methods and `MMMQListener<T>` classes, as the `receive` operations of its AsyncAPI
 * document: pattern, content type (a DTO's JSON Schema), consumer id, ack mode and how they receive. Found by the
 * document's collector through {@link ASYNCAPI_CONTRIBUTOR}; the listeners are the ones found at bootstrap.
 */
@Injectable()
export class ListenerAsyncApiContributor implements AsyncApiContributor {
  constructor(
    private readonly registry: ListenerRegistry,
    @Inject(MMMQ_CONSUMER_RESOLVED_OPTIONS) private readonly options: ResolvedConsumerOptions,
    @Optional() private readonly inMemory?: InMemoryTransport,
    @Optional() private readonly inProcess?: InProcessBrokerTransport,
  ) {}

  [ASYNCAPI_CONTRIBUTOR](): AsyncApiOperation[] {
    return this.registry.all().map((listener) => ({
      action: 'receive',
      address: listener.pattern.value,
      source: listener.where,
      payload: listener.contentType,
      consumerId: listener.consumerId,
      ackMode: listener.ackMode,
      delivery: this.deliveryOf(listener),
      ...(listener.selector === undefined ? {} : { selector: listener.selector }),
    }));
  }

  /** `push` or `pull` from the MMMQ broker, `in-process`, `in-memory`, or the `transport` option's name. */
  private deliveryOf(listener: ListenerDefinition): string {
    const route = receivingRoute(this.options, this.inMemory, this.inProcess);
    if (route === 'broker') return listener.delivery ?? this.options.delivery;
    return route === 'transport' ? this.options.transport!.name : route;
  }
}
