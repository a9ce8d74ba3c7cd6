import { InMemoryBroker, MmmqTestingModule } from '@mmmq/core/testing';
import { TopicPattern } from '@mmmq/core';
import { INestApplication, Injectable } from '@nestjs/common';
import { MessageContext, MMMQListener, MmmqConsumerModule, Payload } from '../../src';
import { ListenerRegistry } from '../../src/listener/listener-registry';
import { initConsumer } from '../support/consumer-context';
import { OrderCreated, validOrder } from '../support/order-created.dto';

/** The form docs/consumer.md shows first: no class decorator, the pattern from listens(). */
@Injectable()
class RefundListener implements MMMQListener<OrderCreated> {
  readonly received: Array<{ order: OrderCreated; context: MessageContext }> = [];

  listens(): string {
    return 'order.created';
  }

  handle(@Payload() order: OrderCreated, context: MessageContext): void {
    this.received.push({ order, context });
  }
}

/** listens() may return a TopicPattern; an undecorated handle() receives the parsed JSON. */
@Injectable()
class PatternListener implements MMMQListener {
  readonly received: unknown[] = [];

  listens(): TopicPattern {
    return new TopicPattern('order.*');
  }

  handle(content: unknown): void {
    this.received.push(content);
  }
}

/** The decorator is still how a class listener carries options. */
@Injectable()
@MMMQListener('order.created', { consumerId: 'billing.invoices', concurrency: 3, ackMode: 'dupsOk' })
class InvoiceListener implements MMMQListener<OrderCreated> {
  readonly received: OrderCreated[] = [];

  handle(@Payload() order: OrderCreated): void {
    this.received.push(order);
  }
}

/** A handle() method alone (a CQRS handler, a job) does not make a provider a listener. */
@Injectable()
class CommandHandler {
  readonly received: unknown[] = [];

  handle(content: unknown): void {
    this.received.push(content);
  }
}

/** A `useValue` object implementing the interface is named by its provider token. */
const plainListener = {
  received: [] as unknown[],
  listens: () => 'order.created',
  handle(content: unknown) {
    this.received.push(content);
  },
};

/** An auto-mock style proxy answers `listens` and `handle` with functions; discovery must not call them. */
const proxyCalls: string[] = [];
const autoMock = new Proxy(
  {},
  {
    get: (_target, property) =>
      property === 'listens' || property === 'handle' ? () => proxyCalls.push(String(property)) && 'order.created' : undefined,
  },
);

describe('class-style listeners are found by listens() or the class decorator', () => {
  let app: INestApplication;
  let broker: InMemoryBroker;

  beforeAll(async () => {
    ({ app } = await initConsumer({
      imports: [MmmqTestingModule.forRoot(), MmmqConsumerModule.forRoot({ app: 'billing' })],
      providers: [
        RefundListener,
        PatternListener,
        InvoiceListener,
        CommandHandler,
        { provide: 'PLAIN_LISTENER', useValue: plainListener },
        { provide: 'AUTO_MOCK', useValue: autoMock },
      ],
    }));
    broker = app.get(InMemoryBroker);
    broker.publish({ topic: 'order.created', content: validOrder('o-1'), headers: { tenant: 'acme' } });
    await broker.drain();
  });
  afterAll(() => app.close());

  it('delivers to an undecorated class that implements MMMQListener<T>, with the content converted and the context', () => {
    const [{ order, context }] = app.get(RefundListener).received;
    expect(order).toBeInstanceOf(OrderCreated);
    expect(order.summary).toBe('2 × o-1 for Ada');
    expect(context).toBeInstanceOf(MessageContext);
    expect(context).toMatchObject({ consumerId: 'billing.refund-listener', topic: 'order.created', headers: { tenant: 'acme' } });
    expect(app.get(PatternListener).received).toEqual([validOrder('o-1')]);
    expect(broker.deadLetters()).toEqual([]);
  });

  it('gives an undecorated class the defaults, its consumer id derived from the class name as for a decorated one', () => {
    const refund = app.get(ListenerRegistry).find('billing.refund-listener');
    expect(refund).toMatchObject({ name: 'RefundListener', where: 'RefundListener.handle', concurrency: 1, ackMode: 'auto' });
    expect(refund?.pattern.value).toBe('order.created');
    expect(app.get(ListenerRegistry).find('billing.pattern-listener')?.pattern.value).toBe('order.*');
  });

  it('keeps the options of a decorated class', () => {
    expect(app.get(ListenerRegistry).find('billing.invoices')).toMatchObject({
      name: 'InvoiceListener',
      concurrency: 3,
      ackMode: 'dupsOk',
    });
    expect(app.get(InvoiceListener).received).toHaveLength(1);
    expect(app.get(InvoiceListener).received[0]).toBeInstanceOf(OrderCreated);
  });

  it('finds a useValue object with listens() and handle(), named by its token', () => {
    expect(app.get(ListenerRegistry).find('billing.plain-listener')).toMatchObject({ name: 'PLAIN_LISTENER' });
    expect(plainListener.received).toEqual([validOrder('o-1')]);
  });

  it('leaves providers with only a handle() method, and proxies, alone', () => {
    expect(app.get(CommandHandler).received).toEqual([]);
    expect(proxyCalls).toEqual([]);
    expect(
      app
        .get(ListenerRegistry)
        .all()
        .map((listener) => listener.name)
        .sort(),
    ).toEqual(['InvoiceListener', 'PLAIN_LISTENER', 'PatternListener', 'RefundListener']);
  });
});
