import { InMemoryBroker, MmmqTestingModule } from '@mmmq/core/testing';
import { Controller, INestApplication, Injectable } from '@nestjs/common';
import { MessageContext, MMMQListener, MmmqConsumerModule, Payload } from '../../src';
import { ListenerRegistry } from '../../src/listener/listener-registry';
import { CapturedLogger } from '../support/captured-logger';
import { initConsumer } from '../support/consumer-context';
import { OrderCreated, validOrder } from '../support/order-created.dto';

@Injectable()
class DecoratedProvider {
  readonly received: Array<{ order: OrderCreated; context: MessageContext }> = [];

  @MMMQListener('order.*')
  onOrder(order: OrderCreated, context: MessageContext): void {
    this.received.push({ order, context });
  }
}

@Controller()
class DecoratedController {
  readonly received: unknown[] = [];

  @MMMQListener({ pattern: 'order.created', name: 'audit' })
  audit(content: unknown): void {
    this.received.push(content);
  }
}

/** `@Payload()` makes TypeScript record handle()'s parameter type, so the content is converted without contentType. */
@Injectable()
@MMMQListener('order.created')
class ClassListener implements MMMQListener<OrderCreated> {
  readonly received: OrderCreated[] = [];

  handle(@Payload() order: OrderCreated): void {
    this.received.push(order);
  }
}

/** An undecorated handle() leaves no type at runtime; contentType names it. listens() agrees with the decorator. */
@Injectable()
@MMMQListener('order.created', { name: 'typed-by-property' })
class ContentTypedListener implements MMMQListener<OrderCreated> {
  readonly contentType = OrderCreated;
  readonly received: OrderCreated[] = [];

  listens(): string {
    return 'order.created';
  }

  handle(order: OrderCreated): void {
    this.received.push(order);
  }
}

/** Provided as a value: the class (and its decorator) is reached through the instance. */
@MMMQListener('order.created')
class ValueClassListener implements MMMQListener {
  readonly received: unknown[] = [];

  handle(content: unknown): void {
    this.received.push(content);
  }
}
const valueClassListener = new ValueClassListener();

/** Built by a factory, so Nest's wrapper knows only the factory function, not this class. */
class FactoryMadeListener {
  readonly received: unknown[] = [];

  @MMMQListener('order.created')
  onCreated(content: unknown): void {
    this.received.push(content);
  }
}

/** Two listeners of one topic in one class: each has its own consumer id, so both receive every message. */
@Injectable()
class TwoOnOneTopic {
  readonly receivedByFirst: unknown[] = [];
  readonly receivedBySecond: unknown[] = [];

  @MMMQListener('order.created')
  first(content: unknown): void {
    this.receivedByFirst.push(content);
  }

  @MMMQListener('order.created')
  second(content: unknown): void {
    this.receivedBySecond.push(content);
  }
}

describe('listener discovery', () => {
  let app: INestApplication;
  let logs: CapturedLogger;
  let broker: InMemoryBroker;

  beforeAll(async () => {
    ({ app, logs } = await initConsumer({
      imports: [MmmqTestingModule.forRoot(), MmmqConsumerModule.forRoot({ app: 'billing' })],
      controllers: [DecoratedController],
      providers: [
        DecoratedProvider,
        ClassListener,
        ContentTypedListener,
        TwoOnOneTopic,
        { provide: 'FACTORY_MADE', useFactory: () => new FactoryMadeListener() },
        { provide: 'VALUE_CLASS_LISTENER', useValue: valueClassListener },
        // An alias of a listener is the same instance and must not listen twice.
        { provide: 'ALIAS', useExisting: DecoratedProvider },
      ],
    }));
    broker = app.get(InMemoryBroker);
    broker.publish({ topic: 'order.created', content: validOrder('o-1'), headers: { tenant: 'acme' } });
    await broker.drain();
  });
  afterAll(() => app.close());

  it('finds decorated methods and classes on providers, controllers, factory and value providers', () => {
    const consumerIds = app
      .get(ListenerRegistry)
      .all()
      .map((listener) => listener.consumerId);
    expect(consumerIds.sort()).toEqual([
      'billing.audit',
      'billing.class-listener',
      'billing.decorated-provider.on-order',
      'billing.factory-made-listener.on-created',
      'billing.two-on-one-topic.first',
      'billing.two-on-one-topic.second',
      'billing.typed-by-property',
      'billing.value-class-listener',
    ]);
    expect(broker.deadLetters()).toEqual([]);
  });

  it('delivers every message once to each listener, with the content converted to the declared class', () => {
    const decorated = app.get(DecoratedProvider).received;
    expect(decorated).toHaveLength(1);
    expect(decorated[0].order).toBeInstanceOf(OrderCreated);
    expect(decorated[0].order.summary).toBe('2 × o-1 for Ada');
    expect(app.get(ClassListener).received[0]).toBeInstanceOf(OrderCreated);
    expect(app.get(ContentTypedListener).received[0]).toBeInstanceOf(OrderCreated);
    expect(app.get(DecoratedController).received).toEqual([validOrder('o-1')]);
    expect(app.get<FactoryMadeListener>('FACTORY_MADE').received).toEqual([validOrder('o-1')]);
    expect(valueClassListener.received).toEqual([validOrder('o-1')]);
  });

  it('gives two listeners of one topic their own consumer ids, so both receive', () => {
    expect(app.get(TwoOnOneTopic).receivedByFirst).toEqual([validOrder('o-1')]);
    expect(app.get(TwoOnOneTopic).receivedBySecond).toEqual([validOrder('o-1')]);
  });

  it('passes the message context as the second parameter', () => {
    const { context } = app.get(DecoratedProvider).received[0];
    expect(context).toBeInstanceOf(MessageContext);
    expect(context).toMatchObject({
      consumerId: 'billing.decorated-provider.on-order',
      topic: 'order.created',
      headers: { tenant: 'acme' },
      offset: 0,
      deliveryCount: 1,
      redelivered: false,
    });
    expect(typeof context.id).toBe('string');
  });

  it('logs one line per listener with its pattern and consumer id', () => {
    const lines = logs.lines.filter((line) => line.startsWith('Listener '));
    expect(lines).toHaveLength(8);
    expect(lines).toContainEqual(
      expect.stringContaining('Listener ClassListener.handle ← order.created (consumerId billing.class-listener'),
    );
    expect(lines).toContainEqual(
      expect.stringContaining('Listener DecoratedProvider.onOrder ← order.* (consumerId billing.decorated-provider.on-order'),
    );
  });
});
