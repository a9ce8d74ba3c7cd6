import { MmmqSystem } from './mmmq';
import { NatsJetStreamSystem } from './nats-jetstream';
import { RabbitMqSystem } from './rabbitmq';
import { RedisStreamsSystem } from './redis-streams';
import type { System } from './system';

/** MMMQ first, then the durable peers, then the others; the report keeps this order. */
export function createSystems(): System[] {
  return [
    new MmmqSystem(),
    new MmmqSystem('nonPersistent'),
    new RabbitMqSystem('classic'),
    new RabbitMqSystem('quorum'),
    new RedisStreamsSystem('always'),
    new RedisStreamsSystem('everysec'),
    new NatsJetStreamSystem(),
  ];
}
