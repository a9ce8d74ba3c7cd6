import { MMMQListener } from '@mmmq/consumer';
import type { OrderEvents } from '../orders/order-events';

/**
 * `@MMMQListener` typed by the order service's event map: a listener's topic must be one of the map's, and its
 * handler must take that topic's content type, or the code does not compile.
 */
export const OrderEventListener = MMMQListener.for<OrderEvents>();
