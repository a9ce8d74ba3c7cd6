import type { Host } from '@mmmq/core';

/** Payload of `mmmq.dispatcher.host-joined`. */
export interface DispatcherHostJoinedEvent {
  consumerId: string;
  /** The push host's URL, e.g. `http://billing-2:8080`. */
  host: string;
  /** Every push host of the dispatcher now. */
  hosts: string[];
}

/** Payload of `mmmq.dispatcher.host-left`. */
export interface DispatcherHostLeftEvent {
  consumerId: string;
  host: string;
  /** Every push host of the dispatcher now (possibly none: it is then served by pull clients only). */
  hosts: string[];
}

/** The push hosts a change of a dispatcher's host list added and removed. */
export function hostChanges(before: readonly Host[], after: readonly Host[]): { joined: Host[]; left: Host[] } {
  return {
    joined: after.filter((host) => !before.some((known) => known.equals(host))),
    left: before.filter((host) => !after.some((kept) => kept.equals(host))),
  };
}
