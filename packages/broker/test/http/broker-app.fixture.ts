import { NestApplicationOptions } from '@nestjs/common';
import { BrokerApp, HttpPlatform, startBroker as startTestBroker } from '@mmmq/test-support';
import { MmmqBrokerOptions } from '../../src';

export { HTTP_PLATFORMS, type BrokerApp, type HttpPlatform, type JsonResponse } from '@mmmq/test-support';

/** `startBroker` of @mmmq/test-support, in the positional form the broker's tests use. */
export function startBroker(
  options: MmmqBrokerOptions = {},
  app: NestApplicationOptions = { bodyParser: false },
  platform: HttpPlatform = 'express',
  host = '127.0.0.1',
): Promise<BrokerApp> {
  return startTestBroker(options, { app, platform, host });
}
