import { Injectable } from '@nestjs/common';
import type { ListenerDefinition } from './listener-definition';

/** The application's listeners by consumer id, filled once at bootstrap. */
@Injectable()
export class ListenerRegistry {
  private byConsumerId: ReadonlyMap<string, ListenerDefinition> = new Map();

  replaceAll(definitions: readonly ListenerDefinition[]): void {
    this.byConsumerId = new Map(definitions.map((definition) => [definition.consumerId, definition]));
  }

  find(consumerId: string): ListenerDefinition | undefined {
    return this.byConsumerId.get(consumerId);
  }

  all(): ListenerDefinition[] {
    return [...this.byConsumerId.values()];
  }
}
