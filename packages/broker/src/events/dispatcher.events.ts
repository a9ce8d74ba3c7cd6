import type { DispatcherDefinitionJson } from '../format/dispatcher-json';

/** Payload of `mmmq.dispatcher.registered`. */
export interface DispatcherRegisteredEvent {
  consumerId: string;
  /** As `GET /mmmq/dispatchers/{consumerId}` shows it (a signing secret only as `signed: true`). */
  dispatcher: DispatcherDefinitionJson;
}

/** Payload of `mmmq.dispatcher.updated`. */
export interface DispatcherUpdatedEvent {
  consumerId: string;
  dispatcher: DispatcherDefinitionJson;
  previous: DispatcherDefinitionJson;
}

/** Payload of `mmmq.dispatcher.removed`. */
export interface DispatcherRemovedEvent {
  consumerId: string;
  /** The definition it had. */
  dispatcher: DispatcherDefinitionJson;
}
