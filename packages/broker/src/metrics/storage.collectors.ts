import { Counter, Gauge, Registry } from 'prom-client';
import { TopicQueueContainer } from '../storage/topic-queue-container';

/** The journal's size and the storage layer's counters, read from `GET /mmmq/storage`'s view when scraped. */
export function registerStorageCollectors(registry: Registry, queues: TopicQueueContainer): void {
  const registers = [registry];
  new Gauge({
    name: 'mmmq_journal_size_bytes',
    help: 'Bytes of the journal files on disk',
    registers,
    async collect() {
      this.set((await queues.view()).journal.bytes);
    },
  });
  new Gauge({
    name: 'mmmq_journal_files',
    help: 'Journal files on disk',
    registers,
    async collect() {
      this.set((await queues.view()).journal.files);
    },
  });
  const counters: ReadonlyArray<{ name: string; help: string; value: () => number }> = [
    { name: 'mmmq_journal_records_total', help: 'Journal records (group commits) written', value: () => queues.journal.stats.commits },
    { name: 'mmmq_journal_fsyncs_total', help: 'fsyncs of journal records', value: () => queues.journal.stats.journalFsyncs },
    { name: 'mmmq_storage_flushes_total', help: 'Flushes of the journal into the topic files', value: () => queues.journal.stats.flushes },
    {
      name: 'mmmq_non_persistent_lost_total',
      help: 'nonPersistent messages acknowledged on receipt and lost because their journal write failed',
      value: () => queues.journal.stats.nonPersistentLost,
    },
  ];
  for (const { name, help, value } of counters) {
    new Counter({
      name,
      help,
      registers,
      collect() {
        this.reset();
        this.inc(value());
      },
    });
  }
}
