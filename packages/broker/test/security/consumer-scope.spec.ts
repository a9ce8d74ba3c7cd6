import { ConsumerScope } from '../../src/security/consumer-scope';

describe('ConsumerScope', () => {
  it.each<[string[], string, boolean]>([
    [['billing'], 'billing', true],
    [['billing'], 'billing.x', false],
    [['billing.*'], 'billing.invoices', true],
    [['billing.*'], 'billing', false],
    [['billing.*'], 'billing.a.b', false],
    [['billing.**'], 'billing', true],
    [['billing.**'], 'billing.a.b', true],
    [['bill*'], 'billing', true],
    [['Billing'], 'billing', false],
    // Consumer ids are not topics: `__` at the start reserves nothing here.
    [['**'], '__internal', true],
    [['*'], '__internal', true],
    [['shipping', 'billing.*'], 'billing.x', true],
    [['**'], 'bad..id', false],
  ])('%j covers %s: %s', (patterns, consumerId, covered) => {
    expect(ConsumerScope.of(patterns).covers(consumerId)).toBe(covered);
  });
});
