import type { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { BATCH_MESSAGES_PATH, MESSAGES_PATH, SHARED_MESSAGES_PATH } from '@mmmq/core';
import { MessageContext, MmmqConsumerModule, MMMQListener } from '../../src';
import { PushRequestHandler } from '../../src/http/push-request-handler';
import { BrokerApp, startBroker } from '../support/broker-app';
import { freePort } from '../support/consumer-app';
import { waitFor } from '../support/wait-for';

const LISTENERS = 1_000;
const ROUNDS = 5;
/** Registration of 1,000 dispatchers and 5,000 handlers; CI runs it beside other suites on two CPUs. */
const DEADLINE_MS = 120_000;

/** One listener per topic, each with its own consumer id, all in one application (one push host). */
@Injectable()
class Fleet {
  readonly received = Array.from({ length: LISTENERS }, () => [] as Array<{ round: number; redelivered: boolean }>);
}
for (let i = 0; i < LISTENERS; i++) {
  const name = `onTopic${i}`;
  Object.defineProperty(Fleet.prototype, name, {
    value(this: Fleet, content: { round: number }, context: MessageContext) {
      this.received[i].push({ round: content.round, redelivered: context.redelivered });
    },
    writable: true,
    configurable: true,
  });
  MMMQListener(`fleet.t${i}`, { consumerId: `fleet-${i}` })(Fleet.prototype, name, Object.getOwnPropertyDescriptor(Fleet.prototype, name)!);
}

/** Each round: one message for every topic, in one batch publish (one commit). */
function round(n: number): { messages: Array<{ topic: string; content: { round: number } }> } {
  return { messages: Array.from({ length: LISTENERS }, (_, i) => ({ topic: `fleet.t${i}`, content: { round: n } })) };
}

describe(`a consumer application with ${LISTENERS.toLocaleString('en')} listeners`, () => {
  let broker: BrokerApp;

  beforeAll(async () => {
    broker = await startBroker();
  });
  afterAll(() => broker?.close());

  it(
    'receives every listener’s messages, in order, through shared pushes: far fewer pushes than listeners × rounds',
    async () => {
      const port = await freePort();
      @Module({
        imports: [MmmqConsumerModule.forRoot({ app: 'fleet', broker: broker.url, advertisedUrl: `http://127.0.0.1:${port}` })],
        providers: [Fleet],
      })
      class FleetModule {}
      // Every push the application takes, by path.
      const pushes = new Map<string, number>();
      const receive = PushRequestHandler.prototype.receive;
      jest.spyOn(PushRequestHandler.prototype, 'receive').mockImplementation(function (
        this: PushRequestHandler,
        request: IncomingMessage,
        response: ServerResponse,
        hangUp?: () => boolean,
      ) {
        const path = request.url ?? '';
        pushes.set(path, (pushes.get(path) ?? 0) + 1);
        return receive.call(this, request, response, hangUp);
      });
      const app = await NestFactory.create(FleetModule, { logger: false });
      await app.listen(port, '127.0.0.1');
      try {
        const fleet = app.get(Fleet);
        await waitFor(
          async () => ((await broker.request('GET', '/mmmq/dispatchers')).body as unknown[]).length === LISTENERS,
          `${LISTENERS} dispatchers registered`,
          DEADLINE_MS,
        );
        // The consumer says it takes shared pushes in its answers: one push on its own first.
        await broker.publish('fleet.t0', { round: 0 });
        await waitFor(() => fleet.received[0].length === 1, 'the first message handled', DEADLINE_MS);
        pushes.clear();

        for (let n = 1; n <= ROUNDS; n++) expect((await broker.request('POST', '/mmmq/messages/batch', round(n))).status).toBe(200);
        const expected = (i: number) => (i === 0 ? ROUNDS + 1 : ROUNDS);
        await waitFor(
          () => fleet.received.every((received, i) => received.length >= expected(i)),
          `${LISTENERS * ROUNDS} messages handled`,
          DEADLINE_MS,
        );

        fleet.received.forEach((received, i) => {
          const rounds = Array.from({ length: ROUNDS }, (_, n) => n + 1);
          expect(received.map((message) => message.round)).toEqual(i === 0 ? [0, ...rounds] : rounds);
          expect(received.some((message) => message.redelivered)).toBe(false);
        });
        const shared = pushes.get(SHARED_MESSAGES_PATH) ?? 0;
        expect(pushes.get(MESSAGES_PATH) ?? 0).toBe(0);
        expect(pushes.get(BATCH_MESSAGES_PATH) ?? 0).toBe(0);
        expect(shared).toBeGreaterThan(0);
        // One push per subscription per round would be 5,000.
        expect(shared).toBeLessThan((LISTENERS * ROUNDS) / 20);
        const positions = await Promise.all(
          [0, LISTENERS / 2, LISTENERS - 1].map(async (i) => (await broker.subscription(`fleet-${i}`, `fleet.t${i}`)).position),
        );
        expect(positions).toEqual([ROUNDS + 1, ROUNDS, ROUNDS]);
      } finally {
        jest.restoreAllMocks();
        await app.close();
      }
    },
    DEADLINE_MS * 2,
  );
});
