import { DispatcherDefinition, toDefinitionJson } from './dispatcher-definition';
import type { BrokerEvents } from '../events/broker-events';
import { hostChanges } from '../events/dispatcher-host.events';
import { MmmqBrokerEvent } from '../events/mmmq-broker-event';

/** Emits the dispatcher events for a change, once it is in `dispatchers.json` and in force. */
export class DispatcherAnnouncer {
  constructor(private readonly events: BrokerEvents) {}

  registered(definition: DispatcherDefinition): void {
    this.events.emit(MmmqBrokerEvent.DISPATCHER_REGISTERED, () => ({
      consumerId: definition.consumerId,
      dispatcher: toDefinitionJson(definition),
    }));
  }

  /** Settings changed: `updated`, plus `host-joined` / `host-left` for the hosts that changed with them. */
  updated(previous: DispatcherDefinition, definition: DispatcherDefinition): void {
    this.events.emit(MmmqBrokerEvent.DISPATCHER_UPDATED, () => ({
      consumerId: definition.consumerId,
      dispatcher: toDefinitionJson(definition),
      previous: toDefinitionJson(previous),
    }));
    this.hostsChanged(previous, definition);
  }

  removed(definition: DispatcherDefinition): void {
    this.events.emit(MmmqBrokerEvent.DISPATCHER_REMOVED, () => ({
      consumerId: definition.consumerId,
      dispatcher: toDefinitionJson(definition),
    }));
  }

  /** One `host-joined` or `host-left` for each push host the change added or removed. */
  hostsChanged(previous: DispatcherDefinition, definition: DispatcherDefinition): void {
    const { joined, left } = hostChanges(previous.hosts, definition.hosts);
    const { consumerId } = definition;
    const hosts = () => definition.hosts.map((host) => host.toUrl());
    for (const host of joined) {
      this.events.emit(MmmqBrokerEvent.DISPATCHER_HOST_JOINED, () => ({ consumerId, host: host.toUrl(), hosts: hosts() }));
    }
    for (const host of left) {
      this.events.emit(MmmqBrokerEvent.DISPATCHER_HOST_LEFT, () => ({ consumerId, host: host.toUrl(), hosts: hosts() }));
    }
  }
}
