import { LoggerService } from '@nestjs/common';
import { BrokerApp, startBroker } from '@mmmq/test-support';
import { MmmqBrokerOptions } from '../../src';
import { PushTargetResolver } from '../../src/dispatch/push-target-guard';
import { FakeResolver } from './fake-resolver';

/**
 * A real broker (as `startBroker`) whose push-target checks resolve names through `resolver` instead of the
 * system's DNS, and which logs to `logger` (default: the quiet test logger).
 */
export function startBrokerWithDns(options: MmmqBrokerOptions, resolver: FakeResolver, logger?: LoggerService | false): Promise<BrokerApp> {
  return startBroker(options, { logger, overrides: [{ token: PushTargetResolver, value: resolver }] });
}
