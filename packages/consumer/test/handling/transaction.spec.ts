import { Logger } from '@nestjs/common';
import { Acknowledgement, PublishRequest, TopicPattern } from '@mmmq/core';
import { BrokerRequestError, LeaseLostError, MessageContext, SettlementError } from '../../src';
import type { AckMode } from '../../src/listener/ack-mode';
import type { ConsumerDelivery } from '../../src/listener/consumer-delivery';
import { ListenerInvoker } from '../../src/handling/listener-invoker';
import type { SettlementChannel } from '../../src/listener/settlement';
import type { ListenerDefinition } from '../../src/listener/listener-definition';
import { commitWithLease } from '../../src/pull/lease-channel';
import type { PullClient } from '../../src/pull/pull-client';

const delivery: ConsumerDelivery = {
  id: 'm-1',
  topic: 'order.created',
  content: { n: 1 },
  headers: {},
  offset: 7,
  deliveryCount: 1,
  redelivered: false,
  publishedAt: null,
  lease: 'order.created:7:1',
};

function listener(ackMode: AckMode, handle: (content: unknown, context: MessageContext) => unknown): ListenerDefinition {
  return {
    name: 'Orders.onCreated',
    where: 'Orders.onCreated',
    consumerId: 'billing.orders',
    pattern: new TopicPattern('order.*'),
    concurrency: 1,
    startFrom: undefined,
    ackMode,
    contentType: { kind: 'any' },
    handle,
  };
}

describe('context.transaction()', () => {
  const invoker = new ListenerInvoker();
  let commits: PublishRequest[][];
  let channel: SettlementChannel;
  beforeEach(() => {
    jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    commits = [];
    channel = {
      commit: async (messages) => {
        commits.push(messages);
        return messages.map((message, offset) => ({
          id: message.id ?? `gen-${offset}`,
          topic: message.topic as string,
          offset,
          deliveryMode: 'persistent' as const,
        }));
      },
    };
  });
  afterEach(() => jest.restoreAllMocks());

  it('commits the outputs once with the settlement, resolves with what the callback returned, and the message counts as settled', async () => {
    let returned: unknown;
    const outcome = await invoker.run(
      listener('auto', async (_content, context) => {
        returned = await context.transaction(async (tx) => {
          tx.produce('invoice.created', { n: 1 }, { id: 'inv-1', headers: { source: 'billing' } });
          tx.produce('audit.log', 'invoiced');
          return 'done';
        });
      }),
      delivery,
      channel,
    );
    expect(returned).toBe('done');
    expect(commits).toEqual([
      [
        { topic: 'invoice.created', content: { n: 1 }, id: 'inv-1', headers: { source: 'billing' } },
        { topic: 'audit.log', content: 'invoiced' },
      ],
    ]);
    expect(outcome).toEqual({ reply: { acknowledgement: Acknowledgement.ACK }, sent: true });
  });

  it('publishes nothing when the callback throws, and the message is NACKed as usual', async () => {
    const outcome = await invoker.run(
      listener('auto', (_content, context) =>
        context.transaction((tx) => {
          tx.produce('invoice.created', { n: 1 });
          throw new Error('pricing failed');
        }),
      ),
      delivery,
      channel,
    );
    expect(commits).toEqual([]);
    expect(outcome).toEqual({ reply: { acknowledgement: Acknowledgement.NACK, message: 'pricing failed' }, sent: false });
  });

  it('is used at most once per delivery, and manual settlement after it (or during it) is refused', async () => {
    const errors: unknown[] = [];
    // Settlement errors are thrown synchronously: caught here whichever way they come.
    const attempt = async (call: () => Promise<unknown>) => {
      try {
        await call();
      } catch (error) {
        errors.push(error);
      }
    };
    await invoker.run(
      listener('manual', async (_content, context) => {
        await context.transaction(() => attempt(() => context.ack()));
        await attempt(() => context.transaction(() => undefined));
        await attempt(() => context.ack());
      }),
      delivery,
      channel,
    );
    expect(errors).toHaveLength(3);
    expect(errors.every((error) => error instanceof SettlementError)).toBe(true);
    expect((errors[0] as Error).message).toMatch(/while its transaction runs/);
    expect((errors[1] as Error).message).toMatch(/a second time/);
    expect((errors[2] as Error).message).toMatch(/already settled with its transaction/);
    expect(commits).toHaveLength(1);
  });

  it('is refused with the reason where it cannot work: ackMode none, no broker option', async () => {
    const tried: unknown[] = [];
    const handle = async (_content: unknown, context: MessageContext) => {
      tried.push(await context.transaction(() => undefined).catch((error: unknown) => error));
    };
    await invoker.run(listener('none', handle), delivery, channel);
    await invoker.run(listener('auto', handle), delivery, { commitUnavailable: 'the consumer option broker is not set' });
    expect((tried[0] as Error).message).toMatch(/ackMode 'none'/);
    expect((tried[1] as Error).message).toMatch(/the consumer option broker is not set/);
    expect(commits).toEqual([]);
  });

  it("turns the broker's 409 into LeaseLostError; other failures pass through", async () => {
    const refusing = (status: number) =>
      ({
        transaction: () => Promise.reject(new BrokerRequestError(`answered HTTP ${status}`, status >= 500, { status })),
      }) as unknown as PullClient;
    const commit409 = commitWithLease(refusing(409), 'billing.orders', 'order.created:7:1', []);
    await expect(commit409).rejects.toBeInstanceOf(LeaseLostError);
    const commit503 = commitWithLease(refusing(503), 'billing.orders', 'order.created:7:1', []);
    await expect(commit503).rejects.toMatchObject({ status: 503, retriable: true });
  });
});
