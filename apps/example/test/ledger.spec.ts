import { Ledger } from '../src/billing/ledger';

describe("billing's ledger", () => {
  it('refunds an invoiced order once, however often its cancellation is delivered', () => {
    const ledger = new Ledger();
    expect(ledger.invoice('a', 10)).toEqual([{ orderId: 'a', kind: 'invoice', amount: 10 }]);
    expect(ledger.invoice('a', 10)).toEqual([]);
    expect(ledger.cancel('a', 'changed my mind')).toEqual({ orderId: 'a', kind: 'refund', amount: 10, reason: 'changed my mind' });
    expect(ledger.cancel('a', 'changed my mind')).toBeUndefined();
    expect(ledger.entries).toHaveLength(2);
  });

  it('holds a cancellation that overtook its invoice and refunds right after invoicing', () => {
    const ledger = new Ledger();
    expect(ledger.cancel('b', 'too late')).toBe('held');
    expect(ledger.entries).toEqual([]);
    expect(ledger.invoice('b', 25)).toEqual([
      { orderId: 'b', kind: 'invoice', amount: 25 },
      { orderId: 'b', kind: 'refund', amount: 25, reason: 'too late' },
    ]);
    expect(ledger.cancel('b', 'too late')).toBeUndefined();
    expect(ledger.invoice('b', 25)).toEqual([]);
  });
});
