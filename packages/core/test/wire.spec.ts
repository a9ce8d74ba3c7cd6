import { CONSUMER_ID_HEADER, MESSAGES_PATH } from '../src/wire';

describe('wire contract', () => {
  it('fixes the endpoint path and the consumer id header name', () => {
    expect(MESSAGES_PATH).toBe('/mmmq/messages');
    expect(CONSUMER_ID_HEADER).toBe('mmmq-consumer-id');
  });
});
