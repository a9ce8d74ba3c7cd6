import { InboxKey, InboxOutcome, ListenerInbox } from '@mmmq/consumer';
import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Inbox } from './inbox';
import { InboxGroupCommit } from './inbox-group-commit';
import { InboxRetention } from './inbox-retention';
import { MMMQ_INBOX_RESOLVED_OPTIONS, ResolvedInboxOptions } from './mmmq-inbox-options.resolver';

/**
 * The `ListenerInbox` of `MmmqInboxModule`: each delivery of an `inbox: true` listener runs in a transaction of the
 * application's library, reserved in `mmmq_inbox` first; old rows are deleted by the retention job.
 */
@Injectable()
export class PostgresListenerInbox extends ListenerInbox implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly retentionMs: number;
  readonly inbox: Inbox<unknown>;
  readonly retention: InboxRetention<unknown>;
  private readonly groupCommit: InboxGroupCommit<unknown> | undefined;

  constructor(@Inject(MMMQ_INBOX_RESOLVED_OPTIONS) private readonly options: ResolvedInboxOptions) {
    super();
    this.retentionMs = options.retention.maxAgeMs;
    this.inbox = new Inbox({ adapter: options.adapter, schema: options.schema });
    this.retention = new InboxRetention(options.adapter, options.transaction, {
      schema: options.quotedSchema,
      retentionMs: options.retention.maxAgeMs,
      intervalMs: options.retention.intervalMs,
      batchSize: options.retention.batchSize,
    });
    if (options.groupCommit) this.groupCommit = new InboxGroupCommit(this.inbox, options.transaction, options.groupCommit);
  }

  process<T>(key: InboxKey, handler: (transaction: unknown) => Promise<T>): Promise<InboxOutcome<T>> {
    if (this.groupCommit) return this.groupCommit.process(key, handler);
    return this.options.transaction((tx) => this.inbox.process(tx, key.messageId, key.consumerId, handler));
  }

  onApplicationBootstrap(): void {
    this.retention.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.groupCommit?.close();
    await this.retention.close();
  }
}
