import { Inject, Injectable, Module, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { OutboxRelay } from '../relay/outbox-relay';
import { ConfigurableMmmqOutboxModule, MMMQ_OUTBOX_OPTIONS } from './mmmq-outbox.module-definition';
import { resolveOutboxOptions, ResolvedOutboxOptions } from './mmmq-outbox-options.resolver';
import { MmmqOutboxOptions } from './mmmq-outbox.options';
import { Outbox } from './outbox';

const RESOLVED_OUTBOX_OPTIONS = Symbol('RESOLVED_OUTBOX_OPTIONS');

/** Runs the module's relay, when its options ask for one, from bootstrap to shutdown. */
@Injectable()
export class OutboxRelayHost implements OnApplicationBootstrap, OnApplicationShutdown {
  /** Absent when the module's options have no `relay`. */
  readonly relay?: OutboxRelay;

  constructor(@Inject(RESOLVED_OUTBOX_OPTIONS) options: ResolvedOutboxOptions) {
    if (options.relay !== undefined) this.relay = new OutboxRelay(options.relay);
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.relay?.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.relay?.close();
  }
}

/**
 * Provides an injectable {@link Outbox} (`constructor(private readonly outbox: Outbox<EntityManager>) {}`) and,
 * when `relay` is given, runs an {@link OutboxRelay}. Options are validated at bootstrap; an unknown or invalid
 * one fails it, naming the option. `forRoot({ adapter, schema?, relay?, isGlobal? })` or
 * `forRootAsync({ imports, inject, useFactory })`.
 */
@Module({
  providers: [
    {
      provide: RESOLVED_OUTBOX_OPTIONS,
      useFactory: (options: MmmqOutboxOptions) => resolveOutboxOptions(options),
      inject: [MMMQ_OUTBOX_OPTIONS],
    },
    {
      provide: Outbox,
      useFactory: (options: ResolvedOutboxOptions) => new Outbox({ adapter: options.adapter, schema: options.schema }),
      inject: [RESOLVED_OUTBOX_OPTIONS],
    },
    OutboxRelayHost,
  ],
  exports: [Outbox, OutboxRelayHost],
})
export class MmmqOutboxModule extends ConfigurableMmmqOutboxModule {}
