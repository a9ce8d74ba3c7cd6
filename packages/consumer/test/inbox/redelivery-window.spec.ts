import {
  BROKER_DEFAULT_ATTEMPT_TIMEOUT_MS,
  BROKER_DEFAULT_MAX_DELIVERIES,
  inboxRetentionWarning,
  knownRedeliveryBounds,
  redeliveryWindowMs,
} from '../../src';
import { checkListenerInbox } from '../../src/inbox/listener-inbox.check';
import type { ListenerInbox } from '../../src/inbox/listener-inbox';
import type { ListenerDefinition } from '../../src/listener/listener-definition';

const FOURTEEN_DAYS_MS = 14 * 24 * 60 * 60 * 1000;

describe("the inbox retention against the broker's redelivery window", () => {
  it('is every delivery running to its timeout, each followed by the longest backoff: 24 min with the defaults', () => {
    expect(BROKER_DEFAULT_MAX_DELIVERIES).toBe(16);
    expect(BROKER_DEFAULT_ATTEMPT_TIMEOUT_MS).toBe(30_000);
    expect(redeliveryWindowMs(knownRedeliveryBounds(undefined))).toBe(16 * (30_000 + 60_000));
    expect(redeliveryWindowMs({ maxDeliveries: 3, attemptTimeoutMs: 1000, backoffMaxMs: 500 })).toBe(4500);
  });

  it("grows with a pull lease longer than the broker's 30 s, never shrinks below it", () => {
    expect(knownRedeliveryBounds(10 * 60_000).attemptTimeoutMs).toBe(600_000);
    expect(knownRedeliveryBounds(5_000).attemptTimeoutMs).toBe(30_000);
  });

  it('does not warn for the default retention (14 days), nor for rows kept for ever', () => {
    expect(inboxRetentionWarning(FOURTEEN_DAYS_MS, knownRedeliveryBounds(undefined))).toBeUndefined();
    expect(inboxRetentionWarning(undefined, knownRedeliveryBounds(undefined))).toBeUndefined();
  });

  it('warns, naming both values, when the retention is not longer than the window', () => {
    const window = redeliveryWindowMs(knownRedeliveryBounds(undefined));
    expect(inboxRetentionWarning(window + 1, knownRedeliveryBounds(undefined))).toBeUndefined();
    const warning = inboxRetentionWarning(window, knownRedeliveryBounds(undefined));
    expect(warning).toContain(`keeps processed messages for ${window} ms`);
    expect(warning).toContain(`redelivery window of ${window} ms (maxDeliveries 16 × (attempt timeout 30000 ms + backoff 60000 ms))`);
  });
});

describe('checkListenerInbox at bootstrap', () => {
  const listener = (where: string, inbox: boolean) => ({ where, inbox }) as ListenerDefinition;
  const inboxKeeping = (retentionMs: number | undefined) => ({ retentionMs, process: jest.fn() }) as unknown as ListenerInbox;

  it('logs one warning naming the inbox listeners when the retention is too short, none with the defaults', () => {
    const logger = { warn: jest.fn() };
    const listeners = [listener('Billing.onOrder', true), listener('Audit.onOrder', false)];
    checkListenerInbox(listeners, inboxKeeping(FOURTEEN_DAYS_MS), { pull: undefined }, logger);
    expect(logger.warn).not.toHaveBeenCalled();
    checkListenerInbox(listeners, inboxKeeping(60_000), { pull: undefined }, logger);
    expect(logger.warn).toHaveBeenCalledTimes(1);
    expect(logger.warn.mock.calls[0][0]).toMatch(/for 60000 ms, not longer than the broker's redelivery window of 1440000 ms/);
    expect(logger.warn.mock.calls[0][0]).toMatch(/\(listeners Billing\.onOrder\)$/);
  });

  it('checks nothing when no listener uses the inbox', () => {
    expect(() => checkListenerInbox([listener('Audit.onOrder', false)], undefined, { pull: undefined }, { warn: jest.fn() })).not.toThrow();
  });
});
