import { BareFdatasyncSystem } from './bare-fdatasync';
import { BareHttpSystem } from './bare-http';
import { MmmqSystem } from './mmmq';
import { MmmqOnRabbitMqSystem, RAW_RABBITMQ_PREFETCH } from './mmmq-on-rabbitmq';
import { NatsJetStreamSystem } from './nats-jetstream';
import { NoBrokerSystem } from './no-broker';
import { RabbitMqSystem } from './rabbitmq';
import { RedisStreamsSystem } from './redis-streams';
import type { System } from './system';

/**
 * MMMQ first, then the durable peers (MMMQ's API on RabbitMQ quorum beside raw RabbitMQ quorum), then the others,
 * then the references that are not brokers (the outbox workload's no-broker pipeline, the bare node:http server, the
 * bare fdatasync loop); the report keeps this order.
 */
export function createSystems(): System[] {
  return [
    new MmmqSystem(),
    new MmmqSystem('nonPersistent'),
    new RabbitMqSystem('classic'),
    new RabbitMqSystem('quorum'),
    new MmmqOnRabbitMqSystem(),
    new MmmqOnRabbitMqSystem(RAW_RABBITMQ_PREFETCH),
    new RedisStreamsSystem('always'),
    new RedisStreamsSystem('everysec'),
    new NatsJetStreamSystem(),
    new NoBrokerSystem(),
    new BareHttpSystem(),
    new BareFdatasyncSystem(),
  ];
}

/** The systems `--systems` names (all when none), in the report's order, and the names that match no system. */
export function selectSystems(ids: readonly string[]): { selected: System[]; unknown: string[] } {
  const all = createSystems();
  return {
    selected: all.filter((s) => ids.length === 0 || ids.includes(s.id)),
    unknown: ids.filter((id) => !all.some((s) => s.id === id)),
  };
}
