import type { MessageHeaders, Selector } from '@mmmq/core';
import { DeliveryLedger } from '../../src/dispatch/ledger/delivery-ledger';
import type { DecodedEnvelope } from '../../src/format/message-envelope';
import { cursorOnly } from '../../src/storage/subscription-snapshot';
import { LEASE_MS, offsets, TEST_LIMITS } from './ledger-fixture';

/** Selects messages whose `region` header is EU; counts how often it was asked. */
class EuSelector implements Selector {
  readonly text = "region = 'EU'";
  calls = 0;
  matches(headers: Readonly<MessageHeaders>): boolean {
    this.calls++;
    return headers.region === 'EU';
  }
}

const message = (region?: string): DecodedEnvelope => ({
  id: null,
  topic: 't',
  publishedAt: 0,
  headers: region === undefined ? {} : { region },
  content: Buffer.from('{}'),
});

describe('the delivery ledger with a selector', () => {
  it('settles what the selector does not select as it is read, says so, and moves the cursor past it', () => {
    const ledger = new DeliveryLedger(cursorOnly(0), TEST_LIMITS);
    const selector = new EuSelector();
    const skipped = ['US', 'EU', undefined, 'EU', 'UK'].map((region) => ledger.admit(message(region), 10, selector));
    expect(skipped).toEqual([true, false, true, false, true]);
    expect(ledger.cursor).toBe(1);
    const taken = ledger.take('m1', 10, Infinity, 0, LEASE_MS);
    expect(offsets(taken)).toEqual([1, 3]);
    for (const slot of taken) ledger.settle(slot);
    expect(ledger.cursor).toBe(5);
    expect(ledger.snapshot()).toMatchObject({ cursor: 5, settled: [] });
  });

  it('changes the durable state with a skip, so that it is written even when nothing else happens', () => {
    const ledger = new DeliveryLedger(cursorOnly(0), TEST_LIMITS);
    const before = ledger.version;
    ledger.admit(message('US'), 10, new EuSelector());
    expect(ledger.version).toBeGreaterThan(before);
    expect(ledger.snapshot().cursor).toBe(1);
  });

  it('does not judge, or count again, a message the restored state says was settled', () => {
    const ledger = new DeliveryLedger({ cursor: 0, settled: [[0, 2]], counts: [], deliveredMark: 0 }, TEST_LIMITS);
    const selector = new EuSelector();
    expect([ledger.admit(message('US'), 10, selector), ledger.admit(message('US'), 10, selector)]).toEqual([false, false]);
    expect(ledger.admit(message('US'), 10, selector)).toBe(true);
    expect(selector.calls).toBe(1);
    expect(ledger.cursor).toBe(3);
  });
});
