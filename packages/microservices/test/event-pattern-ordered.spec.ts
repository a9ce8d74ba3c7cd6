import type { MessageHandler } from '@nestjs/microservices';
import { ConsumerRuntime } from '@mmmq/consumer/internal';
import { eventListeners } from '../src/server/event-listeners';

const BROKER = 'http://127.0.0.1:9';
const handler = (extras: Record<string, unknown> = {}): MessageHandler =>
  Object.assign(async () => undefined, { isEventHandler: true, extras }) as unknown as MessageHandler;

describe('@EventPattern extras: ordered', () => {
  it('carries ordered: false from the extras or the listeners entry, which overrides them', () => {
    const runtime = new ConsumerRuntime({ app: 'shop', broker: BROKER, delivery: 'pull', listeners: { 'invoice.*': { ordered: true } } });
    const handlers = new Map([
      ['order.*', handler({ ordered: false, concurrency: 4 })],
      ['invoice.*', handler({ ordered: false })],
      ['stock.*', handler()],
    ]);
    const listeners = eventListeners(handlers, runtime.options, () => async () => undefined);
    expect(Object.fromEntries(listeners.map(({ name, ordered }) => [name, ordered]))).toEqual({
      'order.*': false,
      'invoice.*': undefined,
      'stock.*': undefined,
    });
  });

  it('refuses ordered: false with maxActiveMembers 1, naming the pattern and both settings', () => {
    const runtime = new ConsumerRuntime({ app: 'shop', broker: BROKER, delivery: 'pull' });
    const handlers = new Map([['order.*', handler({ ordered: false, maxActiveMembers: 1 })]]);
    expect(() => eventListeners(handlers, runtime.options, () => async () => undefined)).toThrow(
      '@EventPattern("order.*"): ordered: false cannot go with maxActiveMembers 1',
    );
  });

  it('refuses an ordered that is not a boolean, naming it', () => {
    const runtime = new ConsumerRuntime({ app: 'shop', broker: BROKER, delivery: 'pull' });
    const handlers = new Map([['order.*', handler({ ordered: 'no' })]]);
    expect(() => eventListeners(handlers, runtime.options, () => async () => undefined)).toThrow(/ordered must be true or false, got "no"/);
  });
});
