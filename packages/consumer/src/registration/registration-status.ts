import { Injectable } from '@nestjs/common';
import type { ListenerDefinition } from '../listener/listener-definition';

/** A listener whose dispatcher is not registered yet. */
export interface PendingRegistration {
  consumerId: string;
  /** `Class.method` of the listener. */
  listener: string;
  /** Tries made so far (0 while the first one runs, or while the push endpoint is not listening yet). */
  attempts: number;
  /** Why the last try failed. */
  lastError?: string;
  /** False once an answer said retrying cannot help (a `400`, a `401`…): the configuration has to change. */
  retrying: boolean;
}

/** Where registration stands: what {@link MmmqConsumerHealthIndicator} reports. */
export interface RegistrationSnapshot {
  /** False before bootstrap has started the registrations. */
  started: boolean;
  registered: string[];
  pending: PendingRegistration[];
}

/** Which listeners' dispatchers the broker holds, and why the others are not there yet. */
@Injectable()
export class RegistrationStatus {
  private started = false;
  private readonly registered: string[] = [];
  private readonly pending = new Map<string, PendingRegistration>();

  /** Registration starts for these listeners (none when nothing registers: the in-memory broker, `autoRegister: false`). */
  expect(listeners: readonly ListenerDefinition[]): void {
    this.started = true;
    for (const { consumerId, where } of listeners)
      this.pending.set(consumerId, { consumerId, listener: where, attempts: 0, retrying: true });
  }

  succeeded(listener: ListenerDefinition): void {
    if (this.pending.delete(listener.consumerId)) this.registered.push(listener.consumerId);
  }

  failed(listener: ListenerDefinition, error: unknown, retrying: boolean): void {
    const entry = this.pending.get(listener.consumerId);
    if (!entry) return;
    entry.attempts++;
    entry.lastError = (error as Error)?.message ?? String(error);
    entry.retrying = retrying;
  }

  snapshot(): RegistrationSnapshot {
    return { started: this.started, registered: [...this.registered], pending: [...this.pending.values()].map((entry) => ({ ...entry })) };
  }
}
