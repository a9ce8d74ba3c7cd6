import { MmmqBrokerOptions } from '@mmmq/broker';
import { BrokerApp, startBroker as startTestBroker } from '@mmmq/test-support';

export type { BrokerApp, StoredMessage } from '@mmmq/test-support';

/** `startBroker` of @mmmq/test-support with the publish stream on a free port. */
export const startBroker = (options: MmmqBrokerOptions = {}): Promise<BrokerApp> => startTestBroker({ stream: { port: 0 }, ...options });
