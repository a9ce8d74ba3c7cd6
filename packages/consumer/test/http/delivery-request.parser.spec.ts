import { InvalidDeliveryError } from '../../src';
import { parseDeliveryBatch, parseDeliveryRequest } from '../../src/http/delivery-request.parser';
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
