import { Logger } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { BrokerEvents } from '../../src/events/broker-events';
import { MmmqBrokerEvent } from '../../src/events/mmmq-broker-event';
import { TopicCreatedEvent } from '../../src/events/topic-created.event';

describe('BrokerEvents', () => {
  const created: TopicCreatedEvent = { topic: 'order.created', reserved: false };
  let errors: jest.SpyInstance;

  beforeEach(() => {
    errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  });
  afterEach(() => errors.mockRestore());

  it('builds no payload when nobody listens, and without a host emitter at all', () => {
    const payload = jest.fn(() => created);
    new BrokerEvents(new EventEmitter2()).emit(MmmqBrokerEvent.TOPIC_CREATED, payload);
    new BrokerEvents().emit(MmmqBrokerEvent.TOPIC_CREATED, payload);
    expect(payload).not.toHaveBeenCalled();
  });

  it('hands the payload to the listeners of that event', () => {
    const emitter = new EventEmitter2();
    const received: unknown[] = [];
    emitter.on(MmmqBrokerEvent.TOPIC_CREATED, (event: unknown) => received.push(event));
    emitter.on(MmmqBrokerEvent.DISPATCHER_REMOVED, () => received.push('wrong event'));
    new BrokerEvents(emitter).emit(MmmqBrokerEvent.TOPIC_CREATED, () => created);
    expect(received).toEqual([created]);
  });

  it('logs a listener that throws or rejects, and never throws into the broker', async () => {
    const emitter = new EventEmitter2();
    emitter.on(MmmqBrokerEvent.TOPIC_CREATED, () => {
      throw new Error('listener broke');
    });
    emitter.on(MmmqBrokerEvent.DISPATCHER_REMOVED, () => Promise.reject(new Error('async listener broke')));
    const events = new BrokerEvents(emitter);
    expect(() => events.emit(MmmqBrokerEvent.TOPIC_CREATED, () => created)).not.toThrow();
    events.emit(MmmqBrokerEvent.DISPATCHER_REMOVED, () => ({ consumerId: 'billing', dispatcher: {} as never }));
    await new Promise((resolve) => setImmediate(resolve));
    expect(errors.mock.calls.map(([message]) => message)).toEqual([
      'A listener of mmmq.topic.created failed: listener broke',
      'A listener of mmmq.dispatcher.removed failed: async listener broke',
    ]);
  });
});
