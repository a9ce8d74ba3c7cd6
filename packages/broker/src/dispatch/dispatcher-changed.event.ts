import type { DispatcherDefinition } from './dispatcher-definition';

/**
 * On the broker's bus (`BrokerBus`): a dispatcher was registered (no `previous`), changed, or removed (no
 * `current`), once the change is in `dispatchers.json` and its subscriptions follow it. Registering the same
 * definition again changes nothing and emits nothing. `DispatcherAnnouncer` turns it into the host's lifecycle events.
 */
export class DispatcherChangedEvent {
  static readonly NAME = 'mmmq.registry.dispatcher-changed';
  constructor(
    readonly previous: DispatcherDefinition | undefined,
    readonly current: DispatcherDefinition | undefined,
  ) {}
}
