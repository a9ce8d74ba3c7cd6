import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { DispatcherDefinition, sameSettings, toDefinitionJson } from './dispatcher-definition';
import { DispatcherChangedEvent } from './dispatcher-changed.event';
import { BrokerBus } from '../events/broker-bus';
import { BrokerEvents } from '../events/broker-events';
import { hostChanges } from '../events/dispatcher-host.events';
import { MmmqBrokerEvent } from '../events/mmmq-broker-event';

/** Emits the host's dispatcher lifecycle events for each change, once it is in `dispatchers.json` and in force. */
@Injectable()
export class DispatcherAnnouncer {
  constructor(
    private readonly events: BrokerEvents,
    bus: BrokerBus,
  ) {
    bus.listen(this);
  }

  @OnEvent(DispatcherChangedEvent.NAME)
  changed({ previous, current }: DispatcherChangedEvent): void {
    if (!previous) {
      if (current) this.registered(current);
    } else if (!current) this.removed(previous);
    else if (sameSettings(previous, current)) this.hostsChanged(previous, current);
    else this.updated(previous, current);
  }

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
