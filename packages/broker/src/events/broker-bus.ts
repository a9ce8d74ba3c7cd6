import { Injectable, Logger } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { EVENT_LISTENER_METADATA } from '@nestjs/event-emitter/dist/constants';

/** What `@OnEvent(event, options)` records on a method (`@nestjs/event-emitter` 3.x). */
interface OnEventMetadata {
  event: string | symbol | Array<string | symbol>;
}

/**
 * The broker's own `EventEmitter2`: the log and the dispatcher registry announce on it what delivery reacts to (a
 * topic opened, records committed, a dispatcher changed, a subscription attached), and delivery's handlers declare
 * what they take with `@OnEvent`. It is private to the broker, never the host's emitter: the host's events and
 * wildcard settings stay its own, and the broker works whether or not the host imports `EventEmitterModule`.
 *
 * {@link listen} subscribes an object's `@OnEvent` methods at once. `EventEmitterModule` would do that only at
 * application bootstrap, after every `onModuleInit`: too late for topics the broker restores, or a publish a
 * host's `onModuleInit` makes, before then. A handler that throws (or rejects) is logged; the emitter and the others go on.
 */
@Injectable()
export class BrokerBus {
  private readonly logger = new Logger(BrokerBus.name);
  private readonly emitter = new EventEmitter2({ maxListeners: 0 });

  /** Calls every handler of `name`, in the order they were subscribed, before it returns. */
  emit(name: string, event: object): void {
    this.emitter.emit(name, event);
  }

  /** Subscribes `handler` to `name`; returns its removal. */
  on<E = unknown>(name: string, handler: (event: E) => unknown): () => void {
    // No closure per call: the commit event comes once per journal record.
    const guarded = (event: E) => {
      try {
        const result = handler(event);
        if (result instanceof Promise) result.catch((error: unknown) => this.failed(name, error));
      } catch (error) {
        this.failed(name, error);
      }
    };
    this.emitter.on(name, guarded);
    return () => void this.emitter.off(name, guarded);
  }

  /** Subscribes every `@OnEvent` method of `instance` (its class and the classes it extends); returns their removal. */
  listen(instance: object): () => void {
    const removals: Array<() => void> = [];
    for (let proto = Object.getPrototypeOf(instance); proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
      for (const key of Object.getOwnPropertyNames(proto)) {
        const method = Object.getOwnPropertyDescriptor(proto, key)?.value as unknown;
        if (key === 'constructor' || typeof method !== 'function') continue;
        const declared = (Reflect.getMetadata(EVENT_LISTENER_METADATA, method) ?? []) as OnEventMetadata[];
        for (const { event } of declared) {
          for (const name of Array.isArray(event) ? event : [event]) {
            removals.push(this.on(String(name), (payload) => (method as (event: unknown) => unknown).call(instance, payload)));
          }
        }
      }
    }
    return () => removals.forEach((remove) => remove());
  }

  private failed(name: string, error: unknown): void {
    this.logger.error(`A handler of ${name} failed: ${error instanceof Error ? error.message : String(error)}`, (error as Error)?.stack);
  }
}
