import { MmmqBrokerOptions } from '@mmmq/broker';
import { BrokerApp, FAST_BACKOFF, startBroker as startTestBroker } from '@mmmq/test-support';
import { LoggerService } from '@nestjs/common';

export type { BrokerApp, JsonResponse } from '@mmmq/test-support';

/**
 * `startBroker` of @mmmq/test-support with quick retries unless `delivery` says otherwise; `logger` receives what the
 * broker logs; `port` (default: any free one) for a broker whose URL a consumer knows before it starts. With tokens
 * configured, the test acts as the first admin token.
 */
export function startBroker(options: MmmqBrokerOptions & { logger?: LoggerService; port?: number } = {}): Promise<BrokerApp> {
  const { logger, port, ...brokerOptions } = options;
  const token = options.auth?.tokens?.find((candidate) => candidate.roles.includes('admin'))?.token;
  return startTestBroker({ delivery: FAST_BACKOFF, ...brokerOptions }, { logger, token, port });
}
