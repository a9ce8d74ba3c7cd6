import { Injectable, Logger, Optional } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import type { MmmqBrokerEventMap, MmmqBrokerEventName } from './mmmq-broker-event';

/**
 * Emits the broker's lifecycle events on the host application's `EventEmitter2` — the one `EventEmitterModule`
 * provides when the host imports it; without it nothing is emitted. The broker never installs an emitter of its own.
 * A payload is built only when the event has a listener, so an event nobody listens to costs one lookup. Listeners
 * run as `EventEmitter2` runs them (synchronously unless `@OnEvent(…, { async: true })`); one that throws or rejects
 * is logged and never fails the broker's operation.
 */
@Injectable()
export class BrokerEvents {
  private readonly logger = new Logger(BrokerEvents.name);

  constructor(@Optional() private readonly emitter?: EventEmitter2) {}

  emit<K extends MmmqBrokerEventName>(name: K, payload: () => MmmqBrokerEventMap[K]): void {
    const emitter = this.emitter;
    if (emitter === undefined || !emitter.hasListeners(name)) return;
    try {
      // emitAsync, not emit: it hands back what async listeners return, so a rejection is caught rather than unhandled.
      Promise.resolve(emitter.emitAsync(name, payload())).catch((error: unknown) => this.listenerFailed(name, error));
    } catch (error) {
      this.listenerFailed(name, error);
    }
  }

  private listenerFailed(name: string, error: unknown): void {
    this.logger.error(`A listener of ${name} failed: ${error instanceof Error ? error.message : String(error)}`, (error as Error)?.stack);
  }
}
