import { inProcessBrokerHooksOf, InProcessBrokerTransport, type InProcessBrokerHooks } from '@mmmq/core';
import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import type { Subscription } from 'rxjs';

/**
 * Hands this broker to the microservice strategies of its application that can receive from it in process
 * (`@mmmq/microservices`' MmmqServer, see `InProcessBrokerClient`). Nest never gives a strategy the application's
 * container; it registers the strategy in it as an RPC target (`connectMicroservice`, `createMicroservice`), which
 * is where they are found. Each is told when the broker can be subscribed to (at bootstrap, after every module is
 * initialised: a failure fails the bootstrap) and when the application stops (first thing, before the broker stops:
 * the strategy drains its handlers, as `MmmqConsumerModule` does; Nest closes strategies only after the modules).
 */
@Injectable()
export class InProcessRpcClients implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('MmmqBroker');
  private readonly clients: InProcessBrokerHooks[] = [];
  private readonly targets: Subscription;
  private bootstrapped = false;

  constructor(modules: ModulesContainer, broker: InProcessBrokerTransport) {
    // Replayed: strategies created before this provider are seen too; those connected later, as they are.
    this.targets = modules.getRpcTargetRegistry().subscribe((target) => {
      const client = inProcessBrokerHooksOf(target);
      if (client === undefined) return;
      client.attach(broker);
      this.clients.push(client);
      // Connected after the bootstrap: nothing waits for it then, so a failure is logged.
      if (this.bootstrapped) {
        client.started().catch((error: Error) => this.logger.error(`A microservice failed to subscribe in process`, error.stack));
      }
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    this.bootstrapped = true;
    await Promise.all(this.clients.map((client) => client.started()));
  }

  async onModuleDestroy(): Promise<void> {
    this.targets.unsubscribe();
    await Promise.all(this.clients.map((client) => client.stopping()));
  }
}
