import {
  Acknowledgement,
  ConsumerAcknowledgement,
  MmmqTransport,
  TransportDelivery,
  TransportHandler,
  TransportListener,
  TransportPublisher,
  TransportSubscriber,
} from '@mmmq/core';
import { INestApplication, Injectable } from '@nestjs/common';
import {
  ConsumerClosingError,
  InvalidListenerError,
  MessageContext,
  MmmqConsumerHealthIndicator,
  MmmqConsumerModule,
  MMMQListener,
  NonRetriableError,
  SettlementError,
} from '../../src';
import { initConsumer } from '../support/consumer-context';
import { Gate } from '../support/gate';
import { waitFor } from '../support/wait-for';

/** A transport in the test's hands: it records what the consumer asks of it, and delivers when the test says so. */
class HandTransport extends MmmqTransport {
  readonly name = 'hand';
  readonly events: string[] = [];
  readonly subscribed: TransportListener[] = [];
  private readonly handlers = new Map<string, TransportHandler>();
  /** Set: stopReceiving() fails with it, as on a connection lost at shutdown. */
  stopFailure: Error | undefined;
  /** Set: subscribing this consumer id fails with it, as a declaration the broker refuses. */
  subscribeFailure: { consumerId: string; error: Error } | undefined;

  constructor(private readonly refuse: (listener: TransportListener) => string[] = () => []) {
    super();
  }

  createPublisher(): TransportPublisher {
    throw new Error('a consumer never publishes');
  }

  createSubscriber(): TransportSubscriber {
    return {
      subscribe: async (listener, handle) => {
        if (this.subscribeFailure?.consumerId === listener.consumerId) throw this.subscribeFailure.error;
        this.subscribed.push(listener);
        this.handlers.set(listener.consumerId, handle);
      },
      stopReceiving: async () => {
        this.events.push('stopReceiving');
        if (this.stopFailure) throw this.stopFailure;
      },
      close: async () => void this.events.push('close'),
    };
  }

  unsupported(listener: TransportListener): string[] {
    return this.refuse(listener);
  }

  /** Hands `content` to the listener subscribed as `consumerId`; records how it ended. */
  deliver(consumerId: string, id: string, content: unknown): Promise<ConsumerAcknowledgement> {
    const delivery: TransportDelivery = {
      id,
      topic: 'order.created',
      content,
      headers: {},
      offset: -1,
      deliveryCount: 1,
      redelivered: false,
      publishedAt: Date.now(),
    };
    const handled = this.handlers.get(consumerId)!(delivery);
    handled.then(
      (reply) => this.events.push(`${id} ${reply.acknowledgement}`),
      (error: Error) => this.events.push(`${id} rejected: ${error.constructor.name}`),
    );
    return handled;
  }
}

@Injectable()
class OrderListener {
  readonly gates = new Map<string, Gate>();
  readonly failures: unknown[] = [];

  @MMMQListener('order.*', { concurrency: 2, startFrom: 'earliest', selector: "region = 'EU'" })
  async onOrder(order: { id: string; use?: 'transaction' | 'inProgress' }, context: MessageContext): Promise<void> {
    await this.gates.get(order.id)?.promise;
    if (order.use === 'transaction') await context.transaction((tx) => tx.produce('invoice.paid', {})).catch((error) => this.failed(error));
    if (order.use === 'inProgress') await context.inProgress().catch((error) => this.failed(error));
    if (order.id === 'broken') throw new Error('cannot bill it');
    if (order.id === 'refused') throw new NonRetriableError('not ours');
  }

  private failed(error: unknown): void {
    this.failures.push(error);
    throw error;
  }
}

@Injectable()
class RefundListener {
  @MMMQListener('refund.**', { ackMode: 'manual', maxBacklog: 5 })
  async onRefund(_refund: unknown, context: MessageContext): Promise<void> {
    await context.ack();
  }
}

const ORDERS = 'billing.order-listener.on-order';

/** Ack mode `none`: each message is acknowledged on receipt; the gate of its content holds its handler. */
@Injectable()
class AuditListener {
  readonly gate = new Gate();
  readonly handled: number[] = [];

  @MMMQListener('audit.*', { ackMode: 'none' })
  async onAudit(entry: { n: number }): Promise<void> {
    await this.gate.promise;
    this.handled.push(entry.n);
  }
}

describe('a consumer on another transport', () => {
  let app: INestApplication | undefined;
  afterEach(() => app?.close());

  async function start(transport: HandTransport, providers: unknown[] = [OrderListener]) {
    const started = await initConsumer({
      imports: [MmmqConsumerModule.forRoot({ app: 'billing', transport, shutdownTimeoutMs: 5_000 })],
      providers: providers as never[],
    });
    app = started.app;
    return started;
  }

  it("acknowledges an ackMode 'none' delivery only once the queue has room, so the transport's prefetch bounds what waits unhandled", async () => {
    const transport = new HandTransport();
    const { app } = await initConsumer({
      imports: [MmmqConsumerModule.forRoot({ app: 'billing', transport, queueSize: 2, workers: { min: 1, max: 1 } })],
      providers: [AuditListener],
    });
    const audit = app.get(AuditListener);
    const consumerId = 'billing.audit-listener.on-audit';
    const replies = [0, 1, 2, 3, 4].map((n) => transport.deliver(consumerId, `a${n}`, { n }));
    // One running, two waiting (queueSize 2): acknowledged; the other two wait for room instead of being refused.
    await waitFor(() => transport.events.length === 3, 'three acknowledgements');
    expect(transport.events).toEqual(['a0 ACK', 'a1 ACK', 'a2 ACK']);

    audit.gate.open();
    await expect(Promise.all(replies)).resolves.toEqual(replies.map(() => ({ acknowledgement: Acknowledgement.ACK })));
    await waitFor(() => audit.handled.length === 5, 'every entry handled');
    expect(audit.handled).toEqual([0, 1, 2, 3, 4]);
    await app.close();
  });

  it('subscribes each listener with what it declared, logs the transport per listener, and is healthy once subscribed', async () => {
    const transport = new HandTransport();
    const { app, logs } = await start(transport, [OrderListener, RefundListener]);
    expect(transport.subscribed).toEqual([
      { consumerId: ORDERS, pattern: 'order.*', concurrency: 2, ackMode: 'auto', startFrom: 'earliest', selector: "region = 'EU'" },
      {
        consumerId: 'billing.refund-listener.on-refund',
        pattern: 'refund.**',
        concurrency: 1,
        ackMode: 'manual',
        backlogLimit: { maxBacklog: 5, overflow: 'reject' },
      },
    ]);
    expect(logs.lines).toContain(`OrderListener.onOrder subscribed on the hand transport (consumerId ${ORDERS})`);
    expect(logs.lines).toContain('RefundListener.onRefund subscribed on the hand transport (consumerId billing.refund-listener.on-refund)');
    expect(app.get(MmmqConsumerHealthIndicator).check()).toMatchObject({
      status: 'up',
      registered: [ORDERS, 'billing.refund-listener.on-refund'],
      pending: [],
    });
  });

  it('fails bootstrap naming each listener the transport cannot honour, the transport, and every reason', async () => {
    const transport = new HandTransport((listener) => [
      ...(listener.selector === undefined ? [] : ['selectors cannot be mapped']),
      ...(listener.backlogLimit === undefined ? [] : ['backlog limits cannot be mapped']),
      ...(listener.startFrom === undefined ? [] : ['startFrom cannot be mapped']),
    ]);
    const failure = start(transport, [OrderListener, RefundListener]);
    await expect(failure).rejects.toBeInstanceOf(InvalidListenerError);
    await expect(failure).rejects.toThrow(
      'The hand transport cannot honour these listeners as declared; change them or use the MMMQ broker: ' +
        'OrderListener.onOrder: selectors cannot be mapped; startFrom cannot be mapped | ' +
        'RefundListener.onRefund: backlog limits cannot be mapped',
    );
    expect(transport.subscribed).toEqual([]);
  });

  it('stops and closes its subscriber when a listener cannot be subscribed, before the error fails bootstrap', async () => {
    const transport = new HandTransport();
    transport.subscribeFailure = { consumerId: 'billing.refund-listener.on-refund', error: new Error('access refused') };

    await expect(start(transport, [OrderListener, RefundListener])).rejects.toThrow('access refused');

    expect(transport.subscribed.map(({ consumerId }) => consumerId)).toEqual([ORDERS]);
    expect(transport.events).toEqual(['stopReceiving', 'close']);
  });

  it('runs deliveries through the listener pipeline: ACK once handled, NACK when the handler throws, no retry when refused', async () => {
    const transport = new HandTransport();
    await start(transport);
    await expect(transport.deliver(ORDERS, 'o-1', { id: 'o-1' })).resolves.toEqual({ acknowledgement: Acknowledgement.ACK });
    await expect(transport.deliver(ORDERS, 'o-2', { id: 'broken' })).resolves.toEqual({
      acknowledgement: Acknowledgement.NACK,
      message: 'cannot bill it',
    });
    await expect(transport.deliver(ORDERS, 'o-3', { id: 'refused' })).resolves.toEqual({
      acknowledgement: Acknowledgement.NACK,
      retry: false,
      message: 'not ours',
    });
  });

  it.each([
    ['transaction', 'called context.transaction(), but the hand transport cannot publish outputs in one commit'],
    ['inProgress', 'called context.inProgress(), but the hand transport has no leases to extend (inProgress() needs the MMMQ broker)'],
  ])('refuses context.%s(), naming the transport', async (use, message) => {
    const transport = new HandTransport();
    const { app } = await start(transport);
    await transport.deliver(ORDERS, 'o-1', { id: 'o-1', use });
    const [failure] = app.get(OrderListener).failures;
    expect(failure).toBeInstanceOf(SettlementError);
    expect((failure as Error).message).toContain(message);
  });

  it('on shutdown stops receiving, refuses later deliveries (a rejection), lets the running handler finish, then closes', async () => {
    const transport = new HandTransport();
    const started = await start(transport);
    const gate = new Gate();
    started.app.get(OrderListener).gates.set('o-1', gate);
    const running = transport.deliver(ORDERS, 'o-1', { id: 'o-1' });

    const closing = started.app.close();
    app = undefined;
    await waitFor(() => transport.events.includes('stopReceiving'), 'the consumer to stop receiving');
    await new Promise<void>((resolve) => setImmediate(resolve));
    await expect(transport.deliver(ORDERS, 'o-2', { id: 'o-2' })).rejects.toBeInstanceOf(ConsumerClosingError);
    expect(transport.events).not.toContain('close');

    gate.open();
    await expect(running).resolves.toEqual({ acknowledgement: Acknowledgement.ACK });
    await closing;
    expect(transport.events).toEqual(['stopReceiving', 'o-2 rejected: ConsumerClosingError', 'o-1 ACK', 'close']);
  });

  it('still drains the handlers and closes the transport when stopping it fails, with a warning', async () => {
    const transport = new HandTransport();
    transport.stopFailure = new Error('connection lost');
    const started = await start(transport);
    const gate = new Gate();
    started.app.get(OrderListener).gates.set('o-1', gate);
    const running = transport.deliver(ORDERS, 'o-1', { id: 'o-1' });
    const closing = started.app.close();
    app = undefined;
    await waitFor(() => transport.events.includes('stopReceiving'), 'the consumer to stop receiving');
    gate.open();
    await expect(running).resolves.toEqual({ acknowledgement: Acknowledgement.ACK });
    await closing;
    expect(transport.events).toEqual(['stopReceiving', 'o-1 ACK', 'close']);
    expect(started.logs.lines).toContain(
      "The transport's subscriber failed to stop receiving on shutdown; what is not settled is delivered again: connection lost",
    );
  });
});
