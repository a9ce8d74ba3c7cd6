import type { MessageContext } from '@mmmq/consumer';

/** One handler call, as a listener of the suite records it. */
export interface Handling {
  /** Which application instance handled it. */
  instance: string;
  n: number;
  id: string;
  topic: string;
  deliveryCount: number;
  redelivered: boolean;
}

/** The content every test publishes: a number that names the message. */
export interface Numbered {
  n: number;
}

/** What the listeners of a test saw: calls started and calls finished, in order. */
export class Journal {
  readonly started: Handling[] = [];
  readonly finished: Handling[] = [];

  start(instance: string, content: Numbered, context: MessageContext): Handling {
    const handling = {
      instance,
      n: content.n,
      id: context.id,
      topic: context.topic,
      deliveryCount: context.deliveryCount,
      redelivered: context.redelivered,
    };
    this.started.push(handling);
    return handling;
  }

  finish(handling: Handling): void {
    this.finished.push(handling);
  }

  /** The numbers finished (by `instance`, if given), in finishing order. */
  finishedNumbers(instance?: string): number[] {
    return this.finished.filter((entry) => instance === undefined || entry.instance === instance).map(({ n }) => n);
  }

  /** Each number finished, once, sorted. */
  distinctFinished(): number[] {
    return [...new Set(this.finishedNumbers())].sort((a, b) => a - b);
  }
}

/** 0, 1, …, count − 1. */
export function numbers(count: number): number[] {
  return Array.from({ length: count }, (_, n) => n);
}
