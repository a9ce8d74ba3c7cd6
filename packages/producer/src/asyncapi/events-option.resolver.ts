import { describeValue as describe, type EventClasses, Topic } from '@mmmq/core';
import { InvalidProducerOptionsError } from '../errors/invalid-producer-options.error';

/**
 * The `events` option checked: an object of topic name → content class (a function). Topics, not patterns: a
 * producer sends to a topic.
 * @throws InvalidProducerOptionsError naming the entry
 */
export function resolveEvents(events: unknown): ReadonlyMap<string, Function> {
  if (events === undefined) return new Map();
  if (typeof events !== 'object' || events === null || Array.isArray(events)) {
    throw new InvalidProducerOptionsError(`events must be an object of topic → content class, got ${describe(events)}`);
  }
  const resolved = new Map<string, Function>();
  for (const [topic, type] of Object.entries(events as EventClasses)) {
    if (!Topic.isValid(topic)) {
      throw new InvalidProducerOptionsError(
        `events[${JSON.stringify(topic)}]: ${JSON.stringify(topic)} is not a topic name (no wildcards)`,
      );
    }
    if (typeof type !== 'function') {
      throw new InvalidProducerOptionsError(
        `events[${JSON.stringify(topic)}] must be the content's class (or String, Number, Boolean, Array, Object), got ${describe(type)}`,
      );
    }
    resolved.set(topic, type);
  }
  return resolved;
}
