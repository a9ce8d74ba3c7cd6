import { ListenerInbox } from '@mmmq/consumer';
import { Global, Module } from '@nestjs/common';
import { MMMQ_INBOX_OPTIONS, MmmqInboxConfigurableModule } from './mmmq-inbox-module-definition';
import { MMMQ_INBOX_RESOLVED_OPTIONS, resolveInboxOptions } from './mmmq-inbox-options.resolver';
import type { MmmqInboxOptions } from './mmmq-inbox.options';
import { PostgresListenerInbox } from './postgres-listener-inbox';

/**
 * The inbox of `@MMMQListener(pattern, { inbox: true })` listeners on PostgreSQL, beside `MmmqConsumerModule`:
 * `MmmqInboxModule.forRoot({ adapter, transaction })` or `forRootAsync({...})`. Global, so the consumer module finds
 * its `ListenerInbox`; inject `PostgresListenerInbox` for the `Inbox` itself or the retention job.
 */
@Global()
@Module({
  providers: [
    {
      provide: MMMQ_INBOX_RESOLVED_OPTIONS,
      useFactory: (options: MmmqInboxOptions) => resolveInboxOptions(options),
      inject: [MMMQ_INBOX_OPTIONS],
    },
    PostgresListenerInbox,
    { provide: ListenerInbox, useExisting: PostgresListenerInbox },
  ],
  exports: [ListenerInbox, PostgresListenerInbox],
})
export class MmmqInboxModule extends MmmqInboxConfigurableModule {}
