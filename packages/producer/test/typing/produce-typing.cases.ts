// Compiled, never run, by produce-typing.spec.ts: every line must compile, and every `@ts-expect-error` must fail to.
import type { AcceptedMessage, DeliveryMode, EventMapOf, PublishedMessage, StoredMessage } from '@mmmq/core';
import type { Producer } from '../../src';

interface OrderEvents {
  'order.created': { orderId: string };
  'metrics.tick': { at: number };
}

export async function persistentByDefault(producer: Producer<OrderEvents>): Promise<number[]> {
  // Code from before nonPersistent messages existed compiles unchanged: the default is persistent, with an offset.
  const { offset } = await producer.produce('order.created', { orderId: '42' });
  const withOptions = await producer.produce('order.created', { orderId: '43' }, { id: 'order-43' });
  const explicit = await producer.produce('order.created', { orderId: '44' }, { deliveryMode: 'persistent' });
  const messageForm = await producer.produce({ topic: 'order.created', content: { orderId: '45' } });
  const untyped = await (producer as unknown as Producer).produce('anything', 1);
  const stored: StoredMessage = withOptions;
  return [offset + 1, stored.offset, explicit.offset, messageForm.offset, untyped.offset];
}

export async function nonPersistentHasNoOffset(producer: Producer<OrderEvents>): Promise<void> {
  const accepted = await producer.produce('metrics.tick', { at: 1 }, { deliveryMode: 'nonPersistent' });
  const messageForm = await producer.produce({ topic: 'metrics.tick', content: { at: 2 }, deliveryMode: 'nonPersistent' });
  const typed: AcceptedMessage[] = [accepted, messageForm];
  // @ts-expect-error: a nonPersistent ACK has no offset
  const offset: number = accepted.offset;
  void [typed, offset];
}

export async function modeKnownAtRunTime(producer: Producer<OrderEvents>, deliveryMode: DeliveryMode): Promise<void> {
  const either: PublishedMessage = await producer.produce('order.created', { orderId: '46' }, { deliveryMode });
  // @ts-expect-error: either kind of ACK, so maybe no offset
  const offset: number = either.offset;
  void offset;
}

export async function batches(producer: Producer<OrderEvents>): Promise<number[]> {
  const stored = await producer.produceBatch([
    { topic: 'order.created', content: { orderId: '47' } },
    { topic: 'metrics.tick', content: { at: 3 }, deliveryMode: 'persistent' },
  ]);
  const accepted: AcceptedMessage[] = await producer.produceBatch([
    { topic: 'metrics.tick', content: { at: 4 }, deliveryMode: 'nonPersistent' },
  ]);
  const mixed = await producer.produceBatch([
    { topic: 'order.created', content: { orderId: '48' } },
    { topic: 'metrics.tick', content: { at: 5 }, deliveryMode: 'nonPersistent' },
  ]);
  // @ts-expect-error: a batch with a nonPersistent message may be acknowledged without offsets
  const offsets: number[] = mixed.map((message) => message.offset);
  void [accepted, offsets];
  return stored.map((message) => message.offset + 1);
}

class OrderPlaced {
  orderId!: string;
}
export const shopEvents = { 'order.placed': OrderPlaced, 'metrics.tick': Number, 'audit.note': String };

export async function typedByTheEventsOption(producer: Producer<EventMapOf<typeof shopEvents>>): Promise<void> {
  // The `events` option's object types the producer: a class stands for its instances, Number for a number.
  await producer.produce('order.placed', { orderId: '42' });
  await producer.produce('metrics.tick', 1);
  await producer.produce('audit.note', 'checked');
  // @ts-expect-error: a number is not an OrderPlaced
  await producer.produce('order.placed', 42);
  // @ts-expect-error: not one of the declared topics
  await producer.produce('order.deleted', { orderId: '42' });
}
