import { MmmqBrokerModule } from '@mmmq/broker';
import { MmmqConsumerModule } from '@mmmq/consumer';
import { DeadLetterHeaders } from '@mmmq/core';
import { MmmqProducerModule, Producer } from '@mmmq/producer';
import { makeTempDir, removeTempDir, waitFor } from '@mmmq/test-support';
import { INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { MmmqServer } from '../../src';
import { Billing, Handled, Invoicing, LISTENERS, REFUSED, Shipping, validItem } from './shop';

const MESSAGES = 2_000;
/** Generous: 2,000 durable messages and three retried ones on a busy two-core CI machine. */
const DEADLINE_MS = 90_000;

type DeadLetter = { content: { id: string }; headers: Record<string, unknown> };

async function deadLetters(app: INestApplication, consumerId: string): Promise<DeadLetter[]> {
  const response = await fetch(`${await app.getUrl()}/mmmq/dead-letters/${consumerId}`.replace('[::1]', '127.0.0.1'));
  expect(response.status).toBe(200);
  return ((await response.json()) as { deadLetters: DeadLetter[] }).deadLetters;
}

describe.each([
  ['express', () => undefined],
  ['fastify', () => new FastifyAdapter()],
])('one %s application created with defaults: broker, method, class and @EventPattern listeners, producer', (_platform, adapter) => {
  let rootDir: string;
  let app: INestApplication | undefined;

  beforeEach(async () => {
    rootDir = await makeTempDir();
    Invoicing.handled.times.clear();
    Invoicing.handled.attemptsOfRefused.length = 0;
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
    await removeTempDir(rootDir);
  });

  async function start(): Promise<INestApplication> {
    @Module({
      imports: [MmmqBrokerModule.forRoot({ persistence: { rootDir } }), MmmqConsumerModule.forRoot(), MmmqProducerModule.forRoot()],
      providers: [Billing, Shipping],
      controllers: [Invoicing],
    })
    class AppModule {}
    const platform = adapter();
    const created =
      platform === undefined
        ? await NestFactory.create(AppModule, { abortOnError: false })
        : await NestFactory.create(AppModule, platform, { abortOnError: false });
    created.connectMicroservice({ strategy: new MmmqServer({}) });
    await created.startAllMicroservices();
    await created.listen(0, '127.0.0.1');
    return created;
  }

  it(
    'handles each of 2,000 messages once, in process; dead-letters an invalid one and a NACKed one after its retries',
    async () => {
      app = await start();
      const producer = app.get(Producer);
      const handled: Record<string, Handled> = {
        billing: app.get(Billing).handled,
        shipping: app.get(Shipping).handled,
        invoicing: Invoicing.handled,
      };
      const placed = await Promise.all(
        Array.from({ length: MESSAGES }, (_, i) => producer.produce(LISTENERS[i % LISTENERS.length].topic, validItem(`m-${i}`))),
      );
      expect(placed.every((published) => typeof published.offset === 'number')).toBe(true);
      for (const { topic } of LISTENERS) {
        await producer.produce(topic, validItem(REFUSED));
        await producer.produce(topic, { id: 'invalid', quantity: 0 });
      }

      const total = () => Object.values(handled).reduce((sum, { times }) => sum + times.size, 0);
      await waitFor(() => total() === MESSAGES, { message: () => `${MESSAGES} messages handled, got ${total()}`, deadlineMs: DEADLINE_MS });
      for (const [index, { consumerId }] of LISTENERS.entries()) {
        const expected = Array.from({ length: MESSAGES }, (_, i) => `m-${i}`).filter((_, i) => i % LISTENERS.length === index);
        expect({ consumerId, ids: [...handled[consumerId].times.keys()].sort() }).toEqual({ consumerId, ids: expected.sort() });
        expect([...handled[consumerId].times.values()].every((times) => times === 1)).toBe(true);
      }
      for (const { consumerId } of LISTENERS) {
        let letters: DeadLetter[] = [];
        await waitFor(
          async () => {
            letters = await deadLetters(app!, consumerId);
            return letters.length === 2;
          },
          { message: () => `two dead letters of ${consumerId}, got ${JSON.stringify(letters)}`, deadlineMs: DEADLINE_MS },
        );
        const reasons = Object.fromEntries(letters.map((letter) => [letter.content.id, letter.headers[DeadLetterHeaders.REASON]]));
        expect({ consumerId, reasons }).toEqual({ consumerId, reasons: { [REFUSED]: 'NACK', invalid: 'REJECTED' } });
        expect({ consumerId, attempts: handled[consumerId].attemptsOfRefused }).toEqual({ consumerId, attempts: [1, 2, 3, 4] });
      }
    },
    3 * DEADLINE_MS,
  );
});
