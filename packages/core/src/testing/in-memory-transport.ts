import { MmmqTransport, TransportListener } from '../transport/transport';
import { InMemoryBroker } from './in-memory-broker';
import { InMemoryPublisher } from './in-memory-publisher';
import { InMemoryTransportSubscriber } from './in-memory-transport-subscriber';

/**
 * The in-memory broker as a transport: `transport: new InMemoryTransport()` runs producers and listeners on an
 * `InMemoryBroker` (`transport.broker`), with the broker's delivery rules (order per topic and consumer id, NACK
 * retries, dead letters, expiry). `MmmqTestingModule` provides one over its broker. What it cannot honour of a
 * listener is in {@link unsupported}; `context.transaction()` works (its outputs are one batch), `inProgress()` does
 * not (there are no leases). It hands one message per topic and consumer id at a time, so a listener's `concurrency`
 * above 1 only runs messages of different topics at once.
 */
export class InMemoryTransport extends MmmqTransport {
  readonly name = 'in-memory';

  constructor(readonly broker: InMemoryBroker = new InMemoryBroker()) {
    super();
  }

  createPublisher(): InMemoryPublisher {
    return new InMemoryPublisher(this.broker);
  }

  createSubscriber(): InMemoryTransportSubscriber {
    return new InMemoryTransportSubscriber(this.broker);
  }

  unsupported(listener: TransportListener): string[] {
    const reasons: string[] = [];
    if (listener.selector !== undefined) {
      reasons.push(`selector ${JSON.stringify(listener.selector)}: the in-memory broker has no selectors and would deliver every message`);
    }
    if (listener.backlogLimit !== undefined) {
      reasons.push(
        `maxBacklog ${listener.backlogLimit.maxBacklog} (${listener.backlogLimit.overflow}): the in-memory broker keeps no backlog ` +
          'limits and would never apply it',
      );
    }
    if (listener.maxActiveMembers !== undefined) {
      reasons.push(
        `maxActiveMembers ${listener.maxActiveMembers}: the in-memory broker shares a consumer id's messages among all its listeners, with no backups`,
      );
    }
    if (listener.maxMembers !== undefined) {
      reasons.push(`maxMembers ${listener.maxMembers}: the in-memory broker does not cap the listeners of a consumer id`);
    }
    if (listener.ordered === false) {
      reasons.push('ordered: false: the in-memory broker delivers in order and keeps no ordering keys, so it cannot keep per-key order');
    }
    if (listener.startFrom === 'latest') {
      reasons.push("startFrom 'latest': the in-memory broker starts every subscription at the first message of each topic");
    }
    if (typeof listener.startFrom === 'object') {
      reasons.push(
        `startFrom ${JSON.stringify(listener.startFrom)}: the in-memory broker starts every subscription at the first message of each topic`,
      );
    }
    return reasons;
  }
}
