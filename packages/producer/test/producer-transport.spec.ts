import {
  InvalidMessageError,
  MmmqTransport,
  PublishedMessage,
  TransportMessage,
  TransportPublisher,
  TransportClosedError,
  TransportPublishOptions,
  TransportRejectedError,
  TransportSubscriber,
} from '@mmmq/core';
import { InMemoryTransport } from '@mmmq/core/testing';
import { Test } from '@nestjs/testing';
import { InvalidProducerOptionsError, MessageRejectedError, MmmqProducerModule, MmmqProducerOptions, ProduceError, Producer } from '../src';
import { BrokerUnreachableError } from '../src/errors/broker-unreachable.error';

/** What the scripted publisher does with one attempt: acknowledge it, fail with an error, or never answer. */
type Reply = 'ack' | 'hang' | Error;

/** A transport whose publisher records every attempt and answers as scripted (the last reply repeats). */
class ScriptedTransport extends MmmqTransport {
  readonly name = 'scripted';
  readonly attempts: TransportMessage[][] = [];
  /** The abort signal of each attempt. */
  readonly signals: (AbortSignal | undefined)[] = [];
  closed = 0;

  constructor(private readonly replies: Reply[] = ['ack']) {
    super();
  }

  createPublisher(): TransportPublisher {
    const send = (messages: readonly TransportMessage[], options?: TransportPublishOptions): Promise<PublishedMessage[]> => {
      this.attempts.push([...messages]);
      this.signals.push(options?.signal);
      const reply = this.replies[Math.min(this.attempts.length, this.replies.length) - 1];
      if (reply === 'hang') return new Promise(() => undefined);
      if (reply !== 'ack') return Promise.reject(reply);
      return Promise.resolve(messages.map(({ id, topic }, offset) => ({ id, topic, offset, deliveryMode: 'persistent' as const })));
    };
    return {
      publish: async (message, options) => (await send([message], options))[0],
      publishBatch: send,
      close: async () => void this.closed++,
    };
  }

  createSubscriber(): TransportSubscriber {
    throw new Error('a producer never subscribes');
  }

  unsupported(): string[] {
    return [];
  }
}

async function producerOn(options: MmmqProducerOptions) {
  const moduleRef = await Test.createTestingModule({
    imports: [MmmqProducerModule.forRoot({ retryDelayMs: 1, batching: false, ...options })],
  }).compile();
  await moduleRef.init();
  return { moduleRef, producer: moduleRef.get(Producer) };
}

describe('Producer with the transport option', () => {
  it('publishes through the transport, and closes its publisher once on shutdown', async () => {
    const transport = new ScriptedTransport();
    const { moduleRef, producer } = await producerOn({ transport });
    await expect(producer.produce('order.created', { n: 1 }, { id: 'o-1' })).resolves.toMatchObject({ id: 'o-1', offset: 0 });
    await producer.produceBatch([
      { topic: 'order.created', content: { n: 2 } },
      { topic: 'order.paid', content: { n: 2 } },
    ]);
    expect(transport.attempts.map((attempt) => attempt.map(({ topic, content }) => `${topic} ${content}`))).toEqual([
      ['order.created {"n":1}'],
      ['order.created {"n":2}', 'order.paid {"n":2}'],
    ]);
    await moduleRef.close();
    await producer.close();
    expect(transport.closed).toBe(1);
  });

  it('retries a failure of the transport with the same id, and succeeds', async () => {
    const transport = new ScriptedTransport([new Error('connection lost'), new Error('channel closed'), 'ack']);
    const { moduleRef, producer } = await producerOn({ transport });
    const published = await producer.produce('order.created', { n: 1 });
    expect(transport.attempts.map(([message]) => message.id)).toEqual([published.id, published.id, published.id]);
    await moduleRef.close();
  });

  it('gives up after maxRetryCount with a ProduceError whose cause says the transport could not publish', async () => {
    const transport = new ScriptedTransport([new Error('connection lost')]);
    const { moduleRef, producer } = await producerOn({ transport, maxRetryCount: 2 });
    const error = await producer.produce('order.created', { n: 1 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProduceError);
    expect(error).toMatchObject({ attempts: 3 });
    expect((error as ProduceError).cause).toBeInstanceOf(BrokerUnreachableError);
    expect((error as Error).message).toContain('The scripted transport could not publish: connection lost');
    await moduleRef.close();
  });

  it('retries an attempt the transport does not answer within timeoutMs', async () => {
    const transport = new ScriptedTransport(['hang', 'ack']);
    const { moduleRef, producer } = await producerOn({ transport, timeoutMs: 50 });
    await expect(producer.produce('order.created', { n: 1 })).resolves.toMatchObject({ offset: 0 });
    expect(transport.attempts).toHaveLength(2);
    await moduleRef.close();
  });

  it('aborts the signal of an attempt it gave up on at timeoutMs, so the transport does not send it later', async () => {
    const transport = new ScriptedTransport(['hang', 'ack']);
    const { moduleRef, producer } = await producerOn({ transport, timeoutMs: 50 });
    await producer.produce('order.created', { n: 1 });
    expect(transport.signals.map((signal) => signal?.aborted)).toEqual([true, false]);
    expect(transport.signals[0]?.reason).toBeInstanceOf(BrokerUnreachableError);
    await moduleRef.close();
  });

  it('does not retry a closed publisher (TransportClosedError), saying nothing was sent', async () => {
    const transport = new ScriptedTransport([new TransportClosedError('The RabbitMQ publisher is closed')]);
    const { moduleRef, producer } = await producerOn({ transport });
    const error = await producer.produce('order.created', { n: 1 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProduceError);
    expect(error).toMatchObject({ attempts: 1 });
    expect((error as Error).message).toContain('The RabbitMQ publisher is closed. Nothing was stored and it was not retried');
    expect(((error as ProduceError).cause as Error).message).toContain("The scripted transport's publisher is closed, nothing was sent");
    expect(transport.attempts).toHaveLength(1);
    await moduleRef.close();
  });

  it.each([
    [
      'a message the transport refuses (MmmqValidationError)',
      new InvalidMessageError('too big for this transport'),
      'The scripted transport refused',
    ],
    [
      'a refusal for good from its broker (TransportRejectedError)',
      new TransportRejectedError('unroutable'),
      'refused the message for good',
    ],
  ])('does not retry %s: a MessageRejectedError as the broker’s 400', async (_what, refusal, said) => {
    const transport = new ScriptedTransport([refusal]);
    const { moduleRef, producer } = await producerOn({ transport });
    const error = await producer.produce('order.created', { n: 1 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MessageRejectedError);
    expect(error).toMatchObject({ status: 400, attempts: 1 });
    expect(((error as MessageRejectedError).cause as Error).message).toContain(said);
    expect(transport.attempts).toHaveLength(1);
    await moduleRef.close();
  });

  it('publishes to an InMemoryTransport given as the option', async () => {
    const transport = new InMemoryTransport();
    const { moduleRef, producer } = await producerOn({ transport, batching: undefined });
    await producer.produce('order.created', { n: 1 });
    expect(transport.broker.published('order.created').map(({ content }) => content)).toEqual([{ n: 1 }]);
    await moduleRef.close();
  });
});

describe('the transport option, validated', () => {
  it.each([
    [{ broker: 'http://127.0.0.1:1' }, 'broker is an option of the MMMQ broker, but transport is set (scripted); remove it'],
    [{ token: 'secret' }, 'token is an option of the MMMQ broker'],
    [{ tls: { ca: ['pem'] } }, 'tls is an option of the MMMQ broker'],
    [
      { broker: 'http://127.0.0.1:1', token: 'secret', tls: {} },
      'broker, token, tls are options of the MMMQ broker, but transport is set (scripted); remove them',
    ],
  ])('refuses %j beside a transport, naming the options', async (options, message) => {
    const failure = producerOn({ transport: new ScriptedTransport(), ...options });
    await expect(failure).rejects.toBeInstanceOf(InvalidProducerOptionsError);
    await expect(failure).rejects.toThrow(message);
  });

  it('refuses batching.maxInFlight above 1, which a transport cannot keep in call order', async () => {
    const failure = producerOn({ transport: new ScriptedTransport(), batching: { maxInFlight: 2 } });
    await expect(failure).rejects.toThrow(
      "batching.maxInFlight above 1 needs the publish stream (an mmmq:// broker URL) or this application's broker, got 2 with the scripted transport",
    );
  });

  it('refuses a transport that is not an MmmqTransport, naming the option', async () => {
    const lookalike = { name: 'rabbitmq', createPublisher: () => undefined };
    const failure = producerOn({ transport: lookalike as unknown as MmmqTransport });
    await expect(failure).rejects.toThrow(
      /^transport must be an MmmqTransport, such as new RabbitMqTransport\(\{ url \}\) of @mmmq\/rabbitmq, got \{"name":"rabbitmq"\}/,
    );
  });

  it('needs no broker with a transport, from forRootAsync too', async () => {
    const transport = new ScriptedTransport();
    const moduleRef = await Test.createTestingModule({
      imports: [MmmqProducerModule.forRootAsync({ useFactory: () => ({ transport }) })],
    }).compile();
    await moduleRef.get(Producer).produce('pings', 1);
    expect(transport.attempts).toHaveLength(1);
    await moduleRef.close();
  });
});
