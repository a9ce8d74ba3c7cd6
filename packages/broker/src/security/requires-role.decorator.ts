import { Reflector } from '@nestjs/core';
import type { BrokerRole } from './broker-role';

/**
 * The role a broker route needs, on the controller or the handler (the handler's wins). Every route of a
 * controller guarded by `BrokerAccessGuard` must have one: a route without is refused, never left open.
 */
export const RequiresRole = Reflector.createDecorator<BrokerRole>();
