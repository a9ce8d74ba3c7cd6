import { Acknowledgement, DeliveryRequest } from '@mmmq/core';
import { INestApplication, Injectable, Module } from '@nestjs/common';
import {
  InboxKey,
  InboxOutcome,
  InvalidListenerError,
  ListenerInbox,
  MessageContext,
  MMMQListener,
  MmmqConsumerModule,
  NonRetriableError,
  SettlementError,
} from '../../src';
import type { ConsumerObserver } from '../../src/handling/consumer-observer';
import { CONSUMER_OBSERVER } from '../../src/handling/consumer-observer';
import { ListenerInvoker } from '../../src/handling/listener-invoker';
import { ListenerRegistry } from '../../src/listener/listener-registry';
import { initConsumer } from '../support/consumer-context';

/** An inbox in memory: the keys processed, each transaction a fresh object whose writes land on commit. */
class MemoryInbox extends ListenerInbox {
  readonly retentionMs = 14 * 24 * 60 * 60 * 1000;
  readonly processed = new Set<string>();
  readonly committed: string[] = [];

  async process<T>({ messageId, consumerId }: InboxKey, handler: (tx: unknown) => Promise<T>): Promise<InboxOutcome<T>> {
    const key = `${consumerId}/${messageId}`;
    if (this.processed.has(key)) return { status: 'duplicate' };
    const tx = { writes: [] as string[] };
    const result = await handler(tx); // a throw: nothing below happens (rolled back)
    this.processed.add(key);
    this.committed.push(...tx.writes);
    return { status: 'processed', result };
  }
}

const calls: string[] = [];
let behaviour: 'write' | 'throw' | 'refuse' | 'broker-transaction' = 'write';

@Injectable()
class Billing {
  @MMMQListener('order.*', { consumerId: 'billing.orders', inbox: true })
  async onOrder(order: { orderId: string }, context: MessageContext): Promise<NonRetriableError | void> {
    calls.push(order.orderId);
    context.inboxTransaction<{ writes: string[] }>().writes.push(`charge ${order.orderId}`);
    if (behaviour === 'throw') throw new Error('the ledger is down');
    if (behaviour === 'refuse') return new NonRetriableError('no such customer');
    if (behaviour === 'broker-transaction') await context.transaction(() => undefined);
  }

  @MMMQListener('order.*', { consumerId: 'billing.plain' })
  onPlain(_order: unknown, context: MessageContext): void {
    context.inboxTransaction();
  }
}

@MMMQListener('invoice.*', { consumerId: 'billing.invoices', inbox: true })
class InvoiceListener implements MMMQListener<{ orderId: string }> {
  handle(invoice: { orderId: string }, context: MessageContext): void {
    calls.push(`invoice ${invoice.orderId}`);
    context.inboxTransaction<{ writes: string[] }>().writes.push(`invoice ${invoice.orderId}`);
  }
}

const delivery = (id: string): DeliveryRequest => ({
  id,
  topic: 'order.created',
  content: { orderId: id },
  headers: {},
  offset: 0,
  deliveryCount: 1,
  redelivered: false,
  publishedAt: null,
});

describe('a listener with inbox: true', () => {
  let app: INestApplication;
  const inbox = new MemoryInbox();
  const observer: ConsumerObserver = { handled: jest.fn(), inboxDuplicate: jest.fn(), watchQueue: jest.fn(), watchTransport: jest.fn() };
  const invoke = (consumerId: string, id: string) =>
    app.get(ListenerInvoker).invoke(app.get(ListenerRegistry).find(consumerId)!, delivery(id));

  beforeAll(async () => {
    @Module({
      providers: [
        { provide: ListenerInbox, useValue: inbox },
        { provide: CONSUMER_OBSERVER, useValue: observer },
      ],
      exports: [ListenerInbox, CONSUMER_OBSERVER],
    })
    class InboxModule {}
    ({ app } = await initConsumer({
      imports: [MmmqConsumerModule.forRoot({ app: 'billing' }), { module: InboxModule, global: true }],
      providers: [Billing, InvoiceListener],
    }));
  });
  afterAll(() => app.close());
  beforeEach(() => {
    calls.length = 0;
    behaviour = 'write';
  });

  it('runs the handler in the inbox transaction, then acknowledges a duplicate without running it, counted', async () => {
    expect(await invoke('billing.orders', 'm-1')).toEqual({ acknowledgement: Acknowledgement.ACK });
    expect(await invoke('billing.orders', 'm-1')).toEqual({ acknowledgement: Acknowledgement.ACK });
    expect(calls).toEqual(['m-1']);
    expect(inbox.committed).toEqual(['charge m-1']);
    expect(observer.inboxDuplicate).toHaveBeenCalledWith('billing.orders', 'order.created');
  });

  it('applies to the class form (MMMQListener<T>) as well', async () => {
    await invoke('billing.invoices', 'i-1');
    await invoke('billing.invoices', 'i-1');
    expect(calls).toEqual(['invoice i-1']);
    expect(inbox.committed).toContain('invoice i-1');
  });

  it('NACKs a failed handler, whose transaction rolled back, so the redelivery runs it again', async () => {
    behaviour = 'throw';
    expect(await invoke('billing.orders', 'm-2')).toMatchObject({ acknowledgement: Acknowledgement.NACK, message: 'the ledger is down' });
    behaviour = 'write';
    expect(await invoke('billing.orders', 'm-2')).toEqual({ acknowledgement: Acknowledgement.ACK });
    expect(calls).toEqual(['m-2', 'm-2']);
    expect(inbox.committed.filter((write) => write === 'charge m-2')).toHaveLength(1);
  });

  it('refuses context.transaction() in the handler, even where the delivery could commit one: it would settle before the database commits', async () => {
    behaviour = 'broker-transaction';
    const commit = jest.fn();
    const reply = await app
      .get(ListenerInvoker)
      .invoke(app.get(ListenerRegistry).find('billing.orders')!, delivery('m-5'), { commit, settle: jest.fn() });

    expect(reply).toMatchObject({ acknowledgement: Acknowledgement.NACK, message: expect.stringContaining('inbox: true') });
    expect(commit).not.toHaveBeenCalled();
    expect(inbox.committed).not.toContain('charge m-5');
  });

  it('rolls back a refusal (a returned NonRetriableError) and dead-letters the message', async () => {
    behaviour = 'refuse';
    expect(await invoke('billing.orders', 'm-3')).toMatchObject({ acknowledgement: Acknowledgement.NACK, retry: false });
    expect(inbox.committed).not.toContain('charge m-3');
  });

  it('context.inboxTransaction() is refused in a listener without the inbox', async () => {
    expect(await invoke('billing.plain', 'm-4')).toMatchObject({ acknowledgement: Acknowledgement.NACK });
    expect(() => new MessageContext('billing.plain', delivery('m-4')).inboxTransaction()).toThrow(SettlementError);
  });
});

describe('bootstrap of an inbox listener', () => {
  it('fails, naming the listener, when no inbox is provided', async () => {
    @Injectable()
    class Orphan {
      @MMMQListener('order.*', { inbox: true })
      onOrder(): void {}
    }
    const failure = initConsumer({ imports: [MmmqConsumerModule.forRoot({ app: 'billing' })], providers: [Orphan] });
    await expect(failure).rejects.toBeInstanceOf(InvalidListenerError);
    await expect(failure).rejects.toThrow(/Orphan\.onOrder has inbox: true, but no inbox is provided; import MmmqInboxModule/);
  });

  it("refuses inbox: true with ackMode 'manual' or 'none', and a non-boolean inbox", async () => {
    @Injectable()
    class Manual {
      @MMMQListener('order.*', { inbox: true, ackMode: 'manual' })
      onOrder(): void {}
    }
    await expect(initConsumer({ imports: [MmmqConsumerModule.forRoot({ app: 'billing' })], providers: [Manual] })).rejects.toThrow(
      /Manual\.onOrder: inbox: true cannot be combined with ackMode 'manual'/,
    );
    @Injectable()
    class Unacknowledged {
      @MMMQListener('order.*', { inbox: true, ackMode: 'none' })
      onOrder(): void {}
    }
    await expect(initConsumer({ imports: [MmmqConsumerModule.forRoot({ app: 'billing' })], providers: [Unacknowledged] })).rejects.toThrow(
      /Unacknowledged\.onOrder: inbox: true cannot be combined with ackMode 'none'/,
    );
    await expect(
      initConsumer({
        imports: [MmmqConsumerModule.forRoot({ app: 'billing', listeners: { x: { inbox: 'yes' as never } } })],
        providers: [],
      }),
    ).rejects.toThrow('listeners["x"].inbox must be true or false, got "yes"');
  });
});
