import { Logger } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { BrokerBus } from '../../src/events/broker-bus';

class Base {
  readonly seen: string[] = [];

  @OnEvent('base.event')
  base(event: { n: number }) {
    this.seen.push(`base ${event.n}`);
  }
}

class Handlers extends Base {
  @OnEvent(['one', 'two'])
  both(event: { n: number }) {
    this.seen.push(`both ${event.n}`);
  }

  @OnEvent('broken')
  broken() {
    throw new Error('handler broke');
  }

  @OnEvent('rejected')
  async rejected() {
    throw new Error('async handler broke');
  }

  notAHandler() {
    this.seen.push('never');
  }
}

describe('BrokerBus', () => {
  let errors: jest.SpyInstance;
  beforeEach(() => {
    errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  });
  afterEach(() => errors.mockRestore());

  it("subscribes an object's @OnEvent methods, inherited ones and multi-event ones included, and runs them before emit returns", () => {
    const bus = new BrokerBus();
    const handlers = new Handlers();
    bus.listen(handlers);
    bus.emit('one', { n: 1 });
    bus.emit('two', { n: 2 });
    bus.emit('base.event', { n: 3 });
    bus.emit('unknown', { n: 4 });
    expect(handlers.seen).toEqual(['both 1', 'both 2', 'base 3']);
  });

  it('stops calling the handlers once their removal is called', () => {
    const bus = new BrokerBus();
    const handlers = new Handlers();
    const remove = bus.listen(handlers);
    const direct: number[] = [];
    const off = bus.on<{ n: number }>('one', ({ n }) => direct.push(n));
    bus.emit('one', { n: 1 });
    remove();
    off();
    bus.emit('one', { n: 2 });
    expect(handlers.seen).toEqual(['both 1']);
    expect(direct).toEqual([1]);
  });

  it('logs a handler that throws or rejects, and still runs the handlers after it', async () => {
    const bus = new BrokerBus();
    const after: string[] = [];
    bus.listen(new Handlers());
    bus.on('broken', () => after.push('after the broken one'));
    expect(() => bus.emit('broken', {})).not.toThrow();
    bus.emit('rejected', {});
    await new Promise((resolve) => setImmediate(resolve));
    expect(after).toEqual(['after the broken one']);
    expect(errors.mock.calls.map(([message]) => message)).toEqual([
      'A handler of broken failed: handler broke',
      'A handler of rejected failed: async handler broke',
    ]);
  });
});
