import type { FactoryProvider } from '@nestjs/common';
import { BrokerBus } from '../../events/broker-bus';
import { MMMQ_PERSISTENCE_OPTIONS, ResolvedPersistenceOptions } from '../../config/broker-options';
import { Journal } from './journal';
import { EventLoopDemandPort, JOURNAL_LOOP_DEMAND, JOURNAL_OBSERVER, JournalObserver, JournalPorts } from './journal-ports';

/** The broker-wide journal on the persistence options' flush schedule and fsync interval. */
export function createJournal(options: ResolvedPersistenceOptions, ports: JournalPorts): Journal {
  const schedule = { intervalMs: options.flushIntervalMs, bytes: options.flushBytes };
  return new Journal(schedule, undefined, options.fsyncIntervalMs, ports);
}

/** `Journal` in the broker module: it announces commits on the broker's bus; metrics observe it while they are on. */
export const JOURNAL_PROVIDER: FactoryProvider<Journal> = {
  provide: Journal,
  useFactory: (options: ResolvedPersistenceOptions, bus: BrokerBus, observer?: JournalObserver, loopDemand?: EventLoopDemandPort) =>
    createJournal(options, { bus, observer, loopDemand }),
  inject: [
    MMMQ_PERSISTENCE_OPTIONS,
    BrokerBus,
    { token: JOURNAL_OBSERVER, optional: true },
    { token: JOURNAL_LOOP_DEMAND, optional: true },
  ],
};
