import { Acknowledgement, DeliveryRequest, type Reply, REPLY_HEADERS, ReplyInboxes } from '@mmmq/core';
import { freePort, waitFor } from '@mmmq/test-support';
import { INestApplication, Injectable } from '@nestjs/common';
import { MmmqConsumerModule, MMMQListener, NonRetriableError } from '../../src';
import { DeliveryHandler } from '../../src/handling/delivery-handler';
import { FrontHandler } from '../../src/handling/front-handler';
import { ListenerInvoker } from '../../src/handling/listener-invoker';
import { ListenerRegistry } from '../../src/listener/listener-registry';
import { ReplySender } from '../../src/reply/reply-sender';
import { initConsumer } from '../support/consumer-context';

@Injectable()
class Quotes {
  @MMMQListener({ pattern: 'quote.price', consumerId: 'quotes.price' })
  price(request: { item: string }): { item: string; price: number } | bigint {
    if (request.item === 'big') return 10n;
    return { item: request.item, price: 12.5 };
  }

  @MMMQListener({ pattern: 'quote.fail', consumerId: 'quotes.fail' })
  fail(request: { verdict?: boolean }): never {
    if (request.verdict === true) throw new NonRetriableError('no such item');
    throw new TypeError('the price list is down');
  }
}

const INBOX = 'inbox-spec';

const delivery = (topic: string, content: unknown, headers: Record<string, string> = {}): DeliveryRequest => ({
  id: 'm-1',
  topic,
  content,
  headers,
  offset: 0,
  deliveryCount: 1,
  redelivered: false,
  publishedAt: null,
});
const request = (topic: string, content: unknown, correlationId = 'c-1') =>
  delivery(topic, content, { [REPLY_HEADERS.replyTo]: INBOX, [REPLY_HEADERS.correlationId]: correlationId });

describe('a listener answering a request', () => {
  let app: INestApplication;
  const replies: Reply[] = [];
  let closeInbox: () => void;

  beforeAll(async () => {
    ({ app } = await initConsumer({ imports: [MmmqConsumerModule.forRoot({ app: 'quotes' })], providers: [Quotes] }));
  });
  beforeEach(() => {
    replies.length = 0;
    closeInbox = ReplyInboxes.open(INBOX, (reply) => replies.push(reply));
  });
  afterEach(() => closeInbox());
  afterAll(() => app.close());

  const invoke = (consumerId: string, received: DeliveryRequest, invoker = app.get(ListenerInvoker)) =>
    invoker.invoke(app.get(ListenerRegistry).find(consumerId)!, received);

  it("acknowledges it once its handler's result is sent as the reply", async () => {
    expect(await invoke('quotes.price', request('quote.price', { item: 'book' }))).toEqual({ acknowledgement: Acknowledgement.ACK });
    expect(replies).toEqual([{ inbox: INBOX, correlationId: 'c-1', content: { item: 'book', price: 12.5 } }]);
  });

  it('answers a failure with the error (name and message, no stack) and acknowledges the request instead of retrying it', async () => {
    expect(await invoke('quotes.fail', request('quote.fail', {}))).toEqual({ acknowledgement: Acknowledgement.ACK });
    expect(replies).toEqual([{ inbox: INBOX, correlationId: 'c-1', error: { name: 'TypeError', message: 'the price list is down' } }]);
  });

  it('answers a verdict with the error and still dead-letters the request', async () => {
    const answer = await invoke('quotes.fail', request('quote.fail', { verdict: true }));
    expect(answer).toEqual({ acknowledgement: Acknowledgement.NACK, retry: false, message: 'no such item' });
    expect(replies).toEqual([{ inbox: INBOX, correlationId: 'c-1', error: { name: 'NonRetriableError', message: 'no such item' } }]);
  });

  it('answers a result that is not JSON with an error', async () => {
    expect(await invoke('quotes.price', request('quote.price', { item: 'big' }))).toEqual({ acknowledgement: Acknowledgement.ACK });
    expect(replies).toEqual([
      { inbox: INBOX, correlationId: 'c-1', error: { name: 'TypeError', message: expect.stringMatching(/BigInt/) } },
    ]);
  });

  it('handles a message without valid reply headers as an event: a failure is retried, nothing is answered', async () => {
    expect(await invoke('quotes.fail', delivery('quote.fail', {}))).toEqual({
      acknowledgement: Acknowledgement.NACK,
      message: 'the price list is down',
    });
    const badInbox = delivery('quote.price', { item: 'x' }, { [REPLY_HEADERS.replyTo]: 'a b', [REPLY_HEADERS.correlationId]: 'c-2' });
    expect(await invoke('quotes.price', badInbox)).toEqual({ acknowledgement: Acknowledgement.ACK });
    expect(replies).toEqual([]);
  });

  it("NACKs a request whose reply could not reach the broker's relay, so that it is handled and answered again", async () => {
    closeInbox();
    const unreachable = `http://127.0.0.1:${await freePort()}`;
    const sender = new ReplySender({ kind: 'http', access: { url: unreachable, token: undefined, tls: undefined, timeoutMs: 2_000 } });
    try {
      const invoker = new ListenerInvoker(undefined, undefined, undefined, sender);
      const answer = await invoke('quotes.price', request('quote.price', { item: 'book' }), invoker);
      expect(answer).toEqual({
        acknowledgement: Acknowledgement.NACK,
        message: expect.stringMatching(/^its reply could not be sent: POST .* failed/),
      });
    } finally {
      sender.close();
    }
  });

  it("runs a batch's next request while the reply before it is on its way, and acknowledges each once its reply is sent", async () => {
    closeInbox();
    const sent: Reply[] = [];
    const gates: (() => void)[] = [];
    const sender = {
      send: (reply: Reply) => new Promise<void>((resolve) => (sent.push(reply), gates.push(resolve))),
    } as unknown as ReplySender;
    const handler = new DeliveryHandler(app.get(FrontHandler), new ListenerInvoker(undefined, undefined, undefined, sender));
    const settled: number[] = [];
    const batch = handler.handleBatch(
      app.get(ListenerRegistry).find('quotes.price')!,
      [request('quote.price', { item: 'book' }, 'c-1'), request('quote.price', { item: 'pen' }, 'c-2')],
      () => ({}),
      (index) => settled.push(index),
    );
    try {
      await waitFor(() => sent.length === 2, { message: 'both requests handled before any reply was sent' });
      expect(sent.map(({ correlationId }) => correlationId)).toEqual(['c-1', 'c-2']);
      expect(settled).toEqual([]);
      gates[1]();
      await waitFor(() => settled.length === 1, { message: 'the second request settled once its reply was sent' });
      expect(settled).toEqual([1]);
      gates[0]();
      expect(await batch).toEqual([{ acknowledgement: Acknowledgement.ACK }, { acknowledgement: Acknowledgement.ACK }]);
      expect(settled).toEqual([1, 0]);
    } finally {
      // A failed expectation must not leave the batch, and the app's shutdown, waiting for a reply.
      for (const open of gates) open();
      await waitFor(() => sent.length === gates.length && gates.length === 2, { message: 'both replies sent' }).catch(() => undefined);
      for (const open of gates) open();
    }
  });
});
