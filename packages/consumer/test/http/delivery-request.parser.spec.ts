import { InvalidDeliveryError } from '../../src';
import { parseDeliveryBatch, parseDeliveryRequest } from '../../src/handling/delivery-request.parser';
import { delivery } from '../support/consumer-app';

describe('parseDeliveryRequest: lastAttempt (pushed and fetched deliveries alike)', () => {
  it('carries lastAttempt from the broker', () => {
    expect(parseDeliveryRequest(delivery({ n: 1 }, { lastAttempt: true })).lastAttempt).toBe(true);
    expect(parseDeliveryRequest(delivery({ n: 1 }, { lastAttempt: false })).lastAttempt).toBe(false);
  });

  it('reads a delivery without it (a broker before it) as not the last attempt', () => {
    expect(parseDeliveryRequest(delivery({ n: 1 })).lastAttempt).toBe(false);
  });

  it('refuses one that is not a boolean, naming the field', () => {
    expect(() => parseDeliveryRequest(delivery({ n: 1 }, { lastAttempt: 'yes' }))).toThrow(InvalidDeliveryError);
    expect(() => parseDeliveryRequest(delivery({ n: 1 }, { lastAttempt: 'yes' }))).toThrow(
      'The delivery field lastAttempt must be a boolean, got "yes"',
    );
  });

  it('carries it per message of a batch', () => {
    const batch = parseDeliveryBatch({ messages: [delivery({ n: 1 }), delivery({ n: 2 }, { id: 'm-2', lastAttempt: true })] });
    expect(batch.map(({ lastAttempt }) => lastAttempt)).toEqual([false, true]);
  });
});

describe('parseDeliveryRequest: expiresAt and priority', () => {
  it('carries them when the broker sends them, and leaves them out when it does not', () => {
    expect(parseDeliveryRequest(delivery(1, { expiresAt: 1_900_000_000_000, priority: 0 }))).toMatchObject({
      expiresAt: 1_900_000_000_000,
      priority: 0,
    });
    const plain = parseDeliveryRequest(delivery(1));
    expect(plain).not.toHaveProperty('expiresAt');
    expect(plain).not.toHaveProperty('priority');
  });

  it('refuses values the broker never sends, naming the field', () => {
    expect(() => parseDeliveryRequest(delivery(1, { priority: 10 }))).toThrow(
      'The delivery field priority must be an integer from 0 to 9, got 10',
    );
    expect(() => parseDeliveryRequest(delivery(1, { expiresAt: 'soon' }))).toThrow(
      'The delivery field expiresAt must be an integer, got "soon"',
    );
  });
});
