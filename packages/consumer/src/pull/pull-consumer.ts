import { Inject, Injectable, Logger } from '@nestjs/common';
import { FrontHandler } from '../handling/front-handler';
import { ListenerInvoker } from '../handling/listener-invoker';
import type { ListenerDefinition } from '../listener/listener-definition';
import { MMMQ_CONSUMER_RESOLVED_OPTIONS, ResolvedConsumerOptions } from '../mmmq-consumer-options.resolver';
import { ConsumerApi } from './consumer-api';
import { PullLoop } from './pull-loop';

/**
 * `delivery: 'pull'`: one PullLoop per listener. Shutdown runs in three steps around the worker pool's drain:
 * `stopFetching()`, then (the pool drains) `finish()`, which waits for the fetched messages, sends the last acks,
 * and asks the broker (`recover`) to redeliver at once whatever this member still holds unsettled.
 */
@Injectable()
export class PullConsumer {
  private readonly logger = new Logger('MmmqConsumer');
  private loops: Array<{ listener: ListenerDefinition; loop: PullLoop }> = [];
  /** Background registration may still call `start` during shutdown. */
  private stopped = false;

  constructor(
    @Inject(MMMQ_CONSUMER_RESOLVED_OPTIONS) private readonly options: ResolvedConsumerOptions,
    private readonly frontHandler: FrontHandler,
    private readonly invoker: ListenerInvoker,
    private readonly api: ConsumerApi,
  ) {}

  /** Starts fetching for a listener; nothing happens unless `delivery` is `pull`, nor once stopping has begun. */
  start(listener: ListenerDefinition): void {
    const settings = this.options.pull;
    const client = this.api.client;
    if (settings === undefined || client === undefined || this.stopped) return;
    const deps = { client, frontHandler: this.frontHandler, invoker: this.invoker, settings, logger: this.logger };
    const loop = new PullLoop(listener, deps);
    this.loops.push({ listener, loop });
    loop.start();
    this.logger.log(
      `Pulling ${listener.consumerId} as member ${settings.member} (prefetch ${settings.prefetch}, ackMode ${listener.ackMode})`,
    );
  }

  async stopFetching(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.loops.map(({ loop }) => loop.stop()));
  }

  async finish(): Promise<void> {
    const client = this.api.client;
    const member = this.options.pull?.member;
    await Promise.all(
      this.loops.map(async ({ listener, loop }) => {
        await loop.drain();
        if (client === undefined || member === undefined || listener.ackMode === 'none') return;
        try {
          const released = await client.recover(listener.consumerId, member);
          if (released > 0) this.logger.log(`Released ${released} unsettled message(s) of ${listener.consumerId} for redelivery`);
        } catch (error) {
          this.logger.warn(
            `Could not release the unsettled messages of ${listener.consumerId}; the broker redelivers them when their leases end: ${(error as Error).message}`,
          );
        }
      }),
    );
    this.loops = [];
  }
}
