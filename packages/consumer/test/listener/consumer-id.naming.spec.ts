import { InvalidConsumerIdError } from '@mmmq/core';
import {
  assertListenerConsumerId,
  defaultConsumerId,
  LISTENER_CONSUMER_ID_MAX_LENGTH,
  toKebabCase,
} from '../../src/listener/consumer-id.naming';

describe('consumer id naming', () => {
  describe('toKebabCase', () => {
    it.each([
      ['OrderListener.onCreated', 'order-listener.on-created'],
      ['ORDER_LISTENER', 'order-listener'],
      ['HTTPOrderListener.handle', 'http-order-listener.handle'],
      ['audit', 'audit'],
      ['Billing$Listener..x', 'billing-listener.x'],
      ['v2Listener.on2ndTry', 'v2-listener.on2nd-try'],
    ])('%s → %s', (name, expected) => {
      expect(toKebabCase(name)).toBe(expected);
    });
  });

  describe('defaultConsumerId', () => {
    it('prefixes the kebab-case listener name with the app name', () => {
      expect(defaultConsumerId('billing', 'OrderListener.onCreated')).toBe('billing.order-listener.on-created');
    });

    it('is the kebab-case name alone without an app name', () => {
      expect(defaultConsumerId(undefined, 'OrderListener')).toBe('order-listener');
    });
  });

  describe('assertListenerConsumerId', () => {
    it('accepts what the broker accepts', () => {
      expect(assertListenerConsumerId('billing.order-listener_1')).toBe('billing.order-listener_1');
      expect(assertListenerConsumerId('x'.repeat(LISTENER_CONSUMER_ID_MAX_LENGTH))).toHaveLength(LISTENER_CONSUMER_ID_MAX_LENGTH);
    });

    it.each([
      ['', 'empty'],
      ['.billing', 'a leading dot'],
      ['billing.', 'a trailing dot'],
      ['billing..orders', 'a doubled dot'],
      ['billing/orders', 'a slash'],
      ['x'.repeat(LISTENER_CONSUMER_ID_MAX_LENGTH + 1), 'too long for a dead-letter topic name'],
    ])('refuses %j (%s)', (id) => {
      expect(() => assertListenerConsumerId(id)).toThrow(InvalidConsumerIdError);
    });
  });
});
