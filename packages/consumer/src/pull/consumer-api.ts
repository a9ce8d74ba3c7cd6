import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { MMMQ_CONSUMER_RESOLVED_OPTIONS, ResolvedConsumerOptions } from '../config/resolved-consumer-options';
import { PullClient } from './pull-client';

/** The broker's consumer API (`/mmmq/consumers/…`) when the `broker` option is set: pull, and lease extension for pushes. */
@Injectable()
export class ConsumerApi implements OnApplicationShutdown {
  /** Absent without the `broker` option. */
  readonly client: PullClient | undefined;

  constructor(@Inject(MMMQ_CONSUMER_RESOLVED_OPTIONS) options: ResolvedConsumerOptions) {
    const broker = options.broker;
    this.client = broker && new PullClient(broker.url, broker.timeoutMs, { token: broker.token, tls: broker.tls });
  }

  onApplicationShutdown(): void {
    this.client?.close();
  }
}
