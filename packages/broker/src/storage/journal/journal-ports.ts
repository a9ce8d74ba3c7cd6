import type { BrokerBus } from '../../events/broker-bus';

/** Told about every journal record written, while metrics are on; nothing else is kept per record. */
export interface JournalObserver {
  /** `commits`: the commit requests grouped into the record; `fsyncSeconds`: how long its fsync took. */
  recordWritten(commits: number, bytes: number, fsyncSeconds: number): void;
}

/**
 * Whether work outside the journal needs the event loop while a lone commit of these topics is fsync'd (pushes in
 * flight, in-process listeners: the delivery layer knows). Its fsync then goes through the thread pool instead of
 * blocking the loop: with a plain consumer at 5,000 msg/s, blocking fsyncs held each push round trip behind them
 * (779 vs 2,490 msg/s delivered, one run each).
 */
export interface EventLoopDemandPort {
  needed(topics: readonly string[]): boolean;
}

/** What the layers above lend the journal, bound in the broker module; absent where a test builds storage alone. */
export interface JournalPorts {
  observer?: JournalObserver;
  loopDemand?: EventLoopDemandPort;
  /** Where each committed record is announced (`RecordsCommittedEvent`) to the layers above. */
  bus?: BrokerBus;
}

/** The metrics' {@link JournalObserver}, provided only while metrics are on. */
export const JOURNAL_OBSERVER = Symbol('JOURNAL_OBSERVER');
/** The delivery layer's {@link EventLoopDemandPort}. */
export const JOURNAL_LOOP_DEMAND = Symbol('JOURNAL_LOOP_DEMAND');
