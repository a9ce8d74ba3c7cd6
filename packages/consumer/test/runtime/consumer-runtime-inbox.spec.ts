import { TopicPattern } from '@mmmq/core';
import { InvalidListenerError } from '../../src';
import { ConsumerRuntime, type ListenerDefinition } from '../../src/internal';

/** Nothing listens here: the runtime must refuse before any request. */
const BROKER = 'http://127.0.0.1:9';

const listener = (inbox: boolean): ListenerDefinition => ({
  name: 'onOrder',
  where: 'Billing.onOrder',
  consumerId: 'billing.orders',
  pattern: TopicPattern.of('order.*'),
  concurrency: 1,
  startFrom: undefined,
  ackMode: 'auto',
  inbox,
  contentType: { kind: 'any' },
  handle: () => undefined,
});

describe('ConsumerRuntime (the consumer outside Nest DI, as @mmmq/microservices runs it)', () => {
  it('refuses a listener with inbox: true at start, naming it: it has no ListenerInbox to run it through', async () => {
    const runtime = new ConsumerRuntime({ app: 'billing', broker: BROKER, delivery: 'pull' });
    try {
      await expect(runtime.start([listener(true)])).rejects.toThrow(InvalidListenerError);
      await expect(runtime.start([listener(true)])).rejects.toThrow(/Billing\.onOrder has inbox: true, but no inbox is provided/);
    } finally {
      await runtime.close();
    }
  });
});
