import { MMMQListener } from '@mmmq/consumer';
import { ReplyError, RequestReplyUnavailableError } from '@mmmq/producer';
import { Injectable } from '@nestjs/common';
import { ConformanceHarness } from '../support/harness';
import { uniqueNames } from '../support/names';
import { TRANSPORTS } from '../support/transports';

function quoteListener(pattern: string, consumerId: string) {
  @Injectable()
  class QuoteListener {
    @MMMQListener(pattern, { consumerId, concurrency: 4 })
    quote(request: { n: number }): { n: number; price: number } {
      if (request.n < 0) throw new RangeError(`no price for ${request.n}`);
      return { n: request.n, price: request.n * 2 };
    }
  }
  return QuoteListener;
}

describe.each(TRANSPORTS)('request-reply on $name', (transport) => {
  let harness: ConformanceHarness;

  beforeAll(async () => {
    harness = await ConformanceHarness.start(transport);
  });
  afterAll(() => harness?.close());

  if (transport.exceptions.requestReply) {
    it(`refuses request() before publishing: ${transport.exceptions.requestReply}`, async () => {
      const producer = await harness.producer();
      const error = await producer.request(uniqueNames().topic('quote'), { n: 1 }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(RequestReplyUnavailableError);
      expect((error as Error).message).toContain(`the ${transport.name} transport`);
    });
    return;
  }

  it("answers each request with its listener's result, correlated, and a failure with its error", async () => {
    const names = uniqueNames();
    const topic = names.topic('quote');
    await harness.consumer(names.id, [quoteListener(topic, names.consumerId('quote'))]);
    const producer = await harness.producer();

    const replies = await Promise.all(Array.from({ length: 50 }, (_, n) => producer.request(topic, { n })));
    expect(replies).toEqual(Array.from({ length: 50 }, (_, n) => ({ n, price: 2 * n })));
    const failure = await producer.request(topic, { n: -1 }).catch((caught: unknown) => caught);
    expect(failure).toBeInstanceOf(ReplyError);
    expect(failure).toMatchObject({ remoteName: 'RangeError', remoteMessage: 'no price for -1' });
  });
});
