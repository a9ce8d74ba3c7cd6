import { Logger } from '@nestjs/common';
import { TopicPattern } from '@mmmq/core';
import { LeaseLostError, MessageContext, NonRetriableError, SettlementError } from '../../src';
import type { AckMode } from '../../src/listener/ack-mode';
import type { ConsumerDelivery } from '../../src/listener/consumer-delivery';
import { ListenerInvoker } from '../../src/handling/listener-invoker';
import type { SettlementChannel } from '../../src/listener/settlement';
import type { ListenerDefinition } from '../../src/listener/listener-definition';

const delivery: ConsumerDelivery = {
  id: 'm-1',
  topic: 'order.created',
  content: { n: 1 },
  headers: {},
  offset: 7,
  deliveryCount: 1,
  redelivered: false,
  publishedAt: null,
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

describe('manual acknowledgement', () => {
  const invoker = new ListenerInvoker();
  let errors: jest.SpyInstance;
  beforeEach(() => {
    errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(() => jest.restoreAllMocks());

  it('replies with what the handler decided: ack, nack with a delay, or terminate', async () => {
    const run = (handle: (c: unknown, context: MessageContext) => unknown) => invoker.invoke(listener('manual', handle), delivery);
    expect(await run(async (_c, context) => context.ack())).toEqual({ acknowledgement: 'ACK' });
    expect(await run((_c, context) => context.nack({ delayMs: 5000, message: 'db busy' }))).toEqual({
      acknowledgement: 'NACK',
      delayMs: 5000,
      message: 'db busy',
    });
    expect(await run((_c, context) => context.terminate('customer unknown'))).toEqual({
      acknowledgement: 'NACK',
      retry: false,
      message: 'customer unknown',
    });
  });

  it('NACKs a handler that returns without settling, and logs it as an error naming the listener', async () => {
    const reply = await invoker.invoke(
      listener('manual', () => 'done'),
      delivery,
    );
    expect(reply).toMatchObject({ acknowledgement: 'NACK' });
    expect(reply.retry).toBeUndefined();
    expect(reply.message).toContain('Orders.onCreated returned without settling message m-1');
    expect(errors).toHaveBeenCalledWith(expect.stringContaining("with ackMode 'manual' a handler must call context.ack()"));
  });

  it('keeps a settlement made before the handler threw', async () => {
    const reply = await invoker.invoke(
      listener('manual', async (_c, context) => {
        await context.ack();
        throw new Error('after commit');
      }),
      delivery,
    );
    expect(reply).toEqual({ acknowledgement: 'ACK' });
  });

  it('treats an unsettled throw as in auto mode: NACK, or dead-letter for a NonRetriableError', async () => {
    expect(
      await invoker.invoke(
        listener('manual', () => {
          throw new Error('boom');
        }),
        delivery,
      ),
    ).toEqual({ acknowledgement: 'NACK', message: 'boom' });
    expect(
      await invoker.invoke(
        listener('manual', () => {
          throw new NonRetriableError('bad');
        }),
        delivery,
      ),
    ).toEqual({ acknowledgement: 'NACK', retry: false, message: 'bad' });
  });

  it.each<[string, AckMode, (context: MessageContext) => unknown, string]>([
    ['ack in auto mode', 'auto', (c) => c.ack(), "called context.ack(), which needs ackMode 'manual'; this listener uses 'auto'"],
    ['terminate in dupsOk mode', 'dupsOk', (c) => c.terminate('x'), "needs ackMode 'manual'; this listener uses 'dupsOk'"],
    [
      'ack twice',
      'manual',
      (c) => {
        void c.ack();
        return c.nack();
      },
      'called context.nack() on a message it already settled with ack',
    ],
    ['a delay out of range', 'manual', (c) => c.nack({ delayMs: -1 }), 'delayMs must be an integer from 0 to 3600000'],
    ['inProgress in none mode', 'none', (c) => c.inProgress(), "with ackMode 'none' the message is settled already"],
  ])('refuses %s synchronously with a SettlementError', async (_name, ackMode, misuse, message) => {
    let thrown: unknown;
    await invoker.invoke(
      listener(ackMode, (_c, context) => {
        try {
          return misuse(context);
        } catch (error) {
          thrown = error;
          if (ackMode === 'manual') return context.ack().catch(() => undefined);
        }
      }),
      delivery,
    );
    expect(thrown).toBeInstanceOf(SettlementError);
    expect((thrown as Error).message).toContain(message);
  });

  it('refuses a settlement after the handler returned: the message was NACKed then', async () => {
    let later: MessageContext | undefined;
    await invoker.invoke(
      listener('manual', (_c, context) => void (later = context)),
      delivery,
    );
    expect(() => later!.ack()).toThrow('called context.ack() after its handler returned');
  });

  it('sends the decision through the channel when there is one, and reports it as sent', async () => {
    const sent: unknown[] = [];
    const channel: SettlementChannel = { settle: async (decision) => void sent.push(decision) };
    const outcome = await invoker.run(
      listener('manual', (_c, context) => context.nack({ delayMs: 10 })),
      delivery,
      channel,
    );
    expect(sent).toEqual([{ kind: 'nack', delayMs: 10, message: undefined }]);
    expect(outcome).toEqual({ reply: { acknowledgement: 'NACK', delayMs: 10 }, sent: true });
  });

  it('lets the handler see a lost lease when it acknowledges', async () => {
    const channel: SettlementChannel = { settle: () => Promise.reject(new LeaseLostError('lost')) };
    let seen: unknown;
    await invoker.run(
      listener('manual', (_c, context) => context.ack().catch((error) => void (seen = error))),
      delivery,
      channel,
    );
    expect(seen).toBeInstanceOf(LeaseLostError);
  });

  it('extends the lease on inProgress() in every mode but none, or says why it cannot', async () => {
    let extended = 0;
    const channel: SettlementChannel = { extend: async () => void extended++ };
    await invoker.run(
      listener('auto', (_c, context) => context.inProgress()),
      delivery,
      channel,
    );
    expect(extended).toBe(1);
    let refusal: unknown;
    await invoker.run(
      listener('auto', (_c, context) => context.inProgress().catch((error) => void (refusal = error))),
      delivery,
      {
        extendUnavailable: 'the consumer option broker is not set',
      },
    );
    expect(refusal).toBeInstanceOf(SettlementError);
    expect((refusal as Error).message).toContain('called context.inProgress(), but the consumer option broker is not set');
  });
});
