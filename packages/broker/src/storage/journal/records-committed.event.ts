import type { JournalTopic } from './journal-commit';

/**
 * On the broker's bus (`BrokerBus`): a journal record is committed, its entries durable and readable in their
 * topics. One event per record (a commit group), never one per message; a record that appended nothing (a
 * settlement, a checkpoint) emits none. Internal wiring between the log and delivery.
 */
export class RecordsCommittedEvent {
  static readonly NAME = 'mmmq.log.records-committed';
  constructor(
    /** The topics the record appended to, each once. */
    readonly topics: readonly JournalTopic[],
  ) {}
}
