import { BrokerApp } from '@mmmq/test-support';

export { FAST_BACKOFF, range } from '@mmmq/test-support';

/** Publishes each content to `topic` one after another and returns the offsets. */
export const publishAll = (broker: BrokerApp, topic: string, contents: unknown[]): Promise<number[]> => broker.publishAll(topic, contents);

/** Registers a push consumer through the dispatcher API. */
export const addDispatcher = (broker: BrokerApp, consumerId: string, url: string, pattern: string): Promise<void> =>
  broker.addDispatcher(consumerId, url, pattern);
